package grid.gateway.app.endpoint;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.rewrite.PathId;
import java.util.Optional;

/**
 * A request path as the {@link EndpointTable} classified it, once per request.
 *
 * <p>Thread-safe (immutable).
 *
 * @param rawPath the path as received, before any decoding
 * @param endpoint the row it matched, or for a path no row matches, the unlisted endpoint derived for it
 * @param pathId the stored id its path names ({@code {response_id}} or {@code {conversation_id}}), raw as sent
 * @param listed whether a row of the table matched (a consumer serves exactly the listed paths)
 */
public record Classified(String rawPath, Endpoint endpoint, Optional<PathId> pathId, boolean listed) {
    public Classified {
        requireNonNull(rawPath, "rawPath");
        requireNonNull(endpoint, "endpoint");
        requireNonNull(pathId, "pathId");
    }

    /**
     * The path as every record gives it (access log, the gateway's own log, span names): without its query, the stored
     * id it names replaced by {@value RedactedPath#ID}, and so is any other segment spelled as one (a placeholder such
     * as {@code {item_id}} takes any segment); on a path no row matches, each segment that may be a stored id by its
     * position too ({@link RedactedPath}).
     */
    public String loggedPath() {
        if (!listed) {
            return endpoint.path();
        }
        int query = rawPath.indexOf('?');
        String path = query < 0 ? rawPath : rawPath.substring(0, query);
        return RedactedPath.bySpelling(
                pathId.map(id -> path.substring(0, id.start()) + RedactedPath.ID + path.substring(id.end()))
                        .orElse(path));
    }
}
