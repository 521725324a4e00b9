package grid.gateway.app.http;

import grid.gateway.app.rewrite.PathId;
import grid.gateway.app.rewrite.PathIds;
import grid.gateway.routing.tag.IdKind;
import io.helidon.http.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The methods each API path defines (OpenAI, Anthropic and vLLM's own routes): only these are forwarded; any other
 * method answers 405 with {@code Allow}.
 *
 * <pre>
 *   POST         /v1/chat/completions  /v1/completions  /v1/messages  /v1/messages/count_tokens
 *                /v1/responses  /v1/responses/input_tokens  /v1/responses/compact  /v1/conversations
 *   GET          /v1/models
 *   GET DELETE   /v1/responses/{id}                  POST  /v1/responses/{id}/cancel
 *   GET          /v1/responses/{id}/input_items
 *   GET POST DELETE  /v1/conversations/{id}          GET POST  /v1/conversations/{id}/items
 *   GET DELETE   /v1/conversations/{id}/items/{item_id}
 *   POST         any other path (a provider's allowed path that is none of the above)
 * </pre>
 *
 * <p>{@code HEAD}, {@code OPTIONS}, {@code TRACE}, {@code PATCH}, {@code CONNECT} and made-up methods are defined on no
 * path. Stateless and thread-safe.
 */
final class ApiMethods {
    private static final List<Method> POST = List.of(Method.POST);
    private static final List<Method> GET = List.of(Method.GET);
    private static final List<Method> GET_DELETE = List.of(Method.GET, Method.DELETE);
    private static final List<Method> GET_POST = List.of(Method.GET, Method.POST);
    private static final List<Method> GET_POST_DELETE = List.of(Method.GET, Method.POST, Method.DELETE);
    private static final Map<String, List<Method>> EXACT = Map.of("/v1/models", GET);

    private final PathIds pathIds = new PathIds();

    /** The methods {@code rawPath} (a path the policy serves) defines. */
    List<Method> allowed(String rawPath) {
        List<Method> exact = EXACT.get(rawPath);
        if (exact != null) {
            return exact;
        }
        Optional<PathId> id = pathIds.find(rawPath);
        if (id.isEmpty()) {
            return POST;
        }
        String suffix = rawPath.substring(id.get().end());
        if (id.get().kind() == IdKind.RESP) {
            return switch (suffix) {
                case "" -> GET_DELETE;
                case "/input_items" -> GET;
                default -> POST; // /cancel
            };
        }
        if (suffix.isEmpty()) {
            return GET_POST_DELETE;
        }
        return suffix.equals("/items") ? GET_POST : GET_DELETE;
    }

    /** The {@code Allow} header value for {@code methods}. */
    static String allowHeader(List<Method> methods) {
        return methods.stream().map(Method::text).collect(Collectors.joining(", "));
    }
}
