package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import io.helidon.http.Headers;
import io.helidon.http.Method;

/**
 * One client request as the proxy forwards it: held once, its path already stripped of tags when pinned.
 *
 * <p>Thread-safe (immutable apart from the body array, which nobody modifies after reading).
 *
 * @param method the HTTP method
 * @param path the raw path the client sent (for the error shape and the API)
 * @param target the raw path and query to send upstream
 * @param headers the client's headers
 * @param peer the client's address
 * @param body the body bytes to send upstream
 */
public record ForwardRequest(Method method, String path, String target, Headers headers, String peer, byte[] body) {
    public ForwardRequest {
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(target, "target");
        requireNonNull(headers, "headers");
        requireNonNull(peer, "peer");
        requireNonNull(body, "body");
    }

    /** The same request sent to {@code newTarget} with {@code newBody}. */
    public ForwardRequest with(String newTarget, byte[] newBody) {
        return new ForwardRequest(method, path, newTarget, headers, peer, newBody);
    }

    /**
     * Whether the engine computes the prompt's KV for this request: not for {@code /v1/messages/count_tokens} and
     * {@code /v1/responses/input_tokens}, which only count, so their answers teach the prefix memory nothing.
     */
    public boolean prefills() {
        return !path.equals("/v1/messages/count_tokens") && !path.equals("/v1/responses/input_tokens");
    }

    /** Whether answers to this path carry stored ids to tag (SPEC §5). */
    public boolean tagsIds() {
        return path.startsWith("/v1/responses") || path.startsWith("/v1/conversations");
    }
}
