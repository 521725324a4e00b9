package grid.gateway.app.endpoint;

import static grid.gateway.routing.keyer.ApiDialect.CHAT_COMPLETIONS;
import static grid.gateway.routing.keyer.ApiDialect.COMPLETIONS;
import static grid.gateway.routing.keyer.ApiDialect.MESSAGES;
import static grid.gateway.routing.keyer.ApiDialect.RESPONSES;
import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;
import static java.util.Objects.requireNonNull;

import grid.gateway.app.endpoint.Endpoint.Handling;
import grid.gateway.app.rewrite.PathId;
import grid.gateway.routing.tag.IdKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The API paths the gateway knows, one {@link Endpoint} a row (OpenAI, Anthropic and vLLM's own routes;
 * docs/design.md §4, §5, §8). A new API path is one more row: classification, the methods and their 405, the error
 * shape, keying, pinning and tagging all follow from it.
 *
 * <p>Matching: a literal row matches its exact path. In a row with placeholders, each literal segment matches
 * exactly, and a placeholder matches one non-empty segment, taken raw (not percent-decoded), except a word another
 * row spells literally in that place ({@code /v1/responses/compact} is an endpoint, never a response id). Anything
 * from a {@code ?} on is not part of the path. A path no row matches is <em>unlisted</em> (a consumer does not serve
 * it; a provider may allow it): it defines {@code POST} only, is forwarded unkeyed, and takes its error shape and
 * tagging from the longest literal row its path lies under ({@code /v1/messages/batches}: Anthropic's shape).
 *
 * <p>Thread-safe (immutable).
 */
public final class EndpointTable {
    private static final String RESPONSE_ID = "{response_id}";
    private static final String CONVERSATION_ID = "{conversation_id}";

    private final List<Endpoint> rows;
    private final Map<String, Endpoint> exact = new HashMap<>();
    private final List<Pattern> patterns = new ArrayList<>();

    /**
     * A table of {@code rows}.
     *
     * @throws IllegalArgumentException if a path does not start with {@code /}, has an empty segment, or is listed
     *     twice
     */
    public EndpointTable(List<Endpoint> rows) {
        this.rows = List.copyOf(rows);
        List<String[]> split = new ArrayList<>();
        for (Endpoint row : this.rows) {
            String path = row.path();
            if (!path.startsWith("/") || path.contains("//") || path.endsWith("/")) {
                throw new IllegalArgumentException("an endpoint path is /segment/...: " + path);
            }
            split.add(path.substring(1).split("/", -1));
        }
        for (int r = 0; r < this.rows.size(); r++) {
            Endpoint row = this.rows.get(r);
            if (!row.path().contains("{")) {
                if (exact.put(row.path(), row) != null) {
                    throw new IllegalArgumentException("endpoint listed twice: " + row.path());
                }
            } else {
                patterns.add(new Pattern(row, segments(split, r)));
            }
        }
    }

    /** The API surface of the gateway: the four APIs, their stored objects, and the model list. */
    public static EndpointTable standard() {
        // One row a path, kept as a table (the formatter would wrap the longer rows).
        // spotless:off
        return new EndpointTable(List.of(
            // Literal paths: the APIs' create and counting endpoints, new conversations, the model list.
            Endpoint.at("/v1/chat/completions")        .keyed(CHAT_COMPLETIONS),
            Endpoint.at("/v1/completions")             .keyed(COMPLETIONS),
            Endpoint.at("/v1/messages")                .keyed(MESSAGES).anthropicErrors(),
            Endpoint.at("/v1/messages/count_tokens")   .keyed(MESSAGES).anthropicErrors().countingOnly(),
            Endpoint.at("/v1/responses")               .keyed(RESPONSES).namingIdsInBody().tagged(),
            Endpoint.at("/v1/responses/input_tokens")  .keyed(RESPONSES).namingIdsInBody().countingOnly().tagged(),
            Endpoint.at("/v1/responses/compact")       .keyed(RESPONSES).namingIdsInBody().tagged(),
            Endpoint.at("/v1/conversations")           .handled(Handling.NEW_CONVERSATION).onStoredObject().tagged(),
            Endpoint.at("/v1/models", GET)             .handled(Handling.MODEL_LIST),
            // Stored objects by id: pinned to the cluster the id names.
            Endpoint.at("/v1/responses/{response_id}", GET, DELETE)                        .onStoredObject().tagged(),
            Endpoint.at("/v1/responses/{response_id}/cancel", POST)                        .onStoredObject().tagged(),
            Endpoint.at("/v1/responses/{response_id}/input_items", GET)                    .onStoredObject().tagged(),
            Endpoint.at("/v1/conversations/{conversation_id}", GET, POST, DELETE)          .onStoredObject().tagged(),
            Endpoint.at("/v1/conversations/{conversation_id}/items", GET, POST)            .onStoredObject().tagged(),
            Endpoint.at("/v1/conversations/{conversation_id}/items/{item_id}", GET, DELETE).onStoredObject().tagged()));
        // spotless:on
    }

    /** This table with one more row. */
    public EndpointTable with(Endpoint row) {
        List<Endpoint> more = new ArrayList<>(rows);
        more.add(requireNonNull(row, "row"));
        return new EndpointTable(more);
    }

    /** The rows, in the order given. */
    public List<Endpoint> rows() {
        return rows;
    }

    /** The endpoint of {@code rawPath} (as received, before any decoding); never throws on any path. */
    public Classified classify(String rawPath) {
        requireNonNull(rawPath, "rawPath");
        int query = rawPath.indexOf('?');
        int pathEnd = query < 0 ? rawPath.length() : query;
        Endpoint literal = exact.get(query < 0 ? rawPath : rawPath.substring(0, pathEnd));
        if (literal != null) {
            return new Classified(rawPath, literal, Optional.empty(), true);
        }
        for (Pattern pattern : patterns) {
            Classified matched = pattern.match(rawPath, pathEnd);
            if (matched != null) {
                return matched;
            }
        }
        return new Classified(rawPath, unlisted(rawPath.substring(0, pathEnd)), Optional.empty(), false);
    }

    /**
     * POST only, unkeyed; errors and tagging of the longest literal row {@code path} lies under. Its own path, which
     * traces name it by, is {@code path} without what may be a stored id ({@link RedactedPath}).
     */
    private Endpoint unlisted(String path) {
        Endpoint unlisted = Endpoint.at(RedactedPath.of(path));
        for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
            Endpoint parent = exact.get(path.substring(0, slash));
            if (parent != null) {
                Endpoint shaped = parent.errors() == ErrorShape.ANTHROPIC ? unlisted.anthropicErrors() : unlisted;
                return parent.tagsAnswers() ? shaped.tagged() : shaped;
            }
        }
        return unlisted;
    }

    /** The segments of row {@code r}; a placeholder never matches a word another row spells in its place. */
    private static List<Segment> segments(List<String[]> split, int r) {
        String[] own = split.get(r);
        List<Segment> segments = new ArrayList<>(own.length);
        for (int i = 0; i < own.length; i++) {
            String text = own[i];
            if (!text.startsWith("{")) {
                segments.add(new Segment(text, null, List.of()));
                continue;
            }
            List<String> reserved = new ArrayList<>();
            for (String[] other : split) {
                if (other.length > i && !other[i].startsWith("{") && samePrefix(own, other, i)) {
                    reserved.add(other[i]);
                }
            }
            IdKind kind = text.equals(RESPONSE_ID) ? IdKind.RESP : text.equals(CONVERSATION_ID) ? IdKind.CONV : null;
            segments.add(new Segment(null, kind, List.copyOf(reserved)));
        }
        return List.copyOf(segments);
    }

    private static boolean samePrefix(String[] a, String[] b, int length) {
        for (int i = 0; i < length; i++) {
            if (!a[i].equals(b[i])) {
                return false;
            }
        }
        return true;
    }

    /** One segment of a row: a literal, or a placeholder (of a stored id when {@code idKind} is set). */
    private record Segment(
            @Nullable String literal, @Nullable IdKind idKind, List<String> reserved) {
        boolean matches(String path, int start, int end) {
            if (literal != null) {
                return end - start == literal.length() && path.startsWith(literal, start);
            }
            if (end == start) {
                return false;
            }
            for (String word : reserved) {
                if (end - start == word.length() && path.startsWith(word, start)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A row with placeholders, matched segment by segment without allocating until it matches. */
    private record Pattern(Endpoint row, List<Segment> segments) {
        @Nullable
        Classified match(String rawPath, int pathEnd) {
            if (rawPath.isEmpty() || rawPath.charAt(0) != '/') {
                return null;
            }
            int start = 1;
            int idStart = -1;
            int idEnd = -1;
            IdKind idKind = null;
            for (Segment segment : segments) {
                if (start > pathEnd) {
                    return null;
                }
                int slash = rawPath.indexOf('/', start);
                int end = slash < 0 || slash > pathEnd ? pathEnd : slash;
                if (!segment.matches(rawPath, start, end)) {
                    return null;
                }
                if (segment.idKind() != null) {
                    idKind = segment.idKind();
                    idStart = start;
                    idEnd = end;
                }
                start = end + 1;
            }
            if (start != pathEnd + 1) {
                return null;
            }
            Optional<PathId> id = idKind == null
                    ? Optional.empty()
                    : Optional.of(new PathId(idKind, rawPath.substring(idStart, idEnd), idStart, idEnd));
            return new Classified(rawPath, row, id, true);
        }
    }
}
