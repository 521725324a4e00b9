package grid.gateway.app.http;

import grid.gateway.app.access.RequestIds;
import grid.gateway.app.endpoint.ErrorShape;
import java.util.Optional;

/**
 * The gateway's own error answers (docs/design.md §9), each with its status and the type names of both error shapes.
 *
 * <p>Stateless and thread-safe. Every unknown stored id answers {@link #ID_NOT_FOUND} with one fixed message, so
 * a malformed tag, a forged mac and a cluster that left the grid cannot be told apart from outside.
 */
public enum ApiError {
    ID_NOT_FOUND(
            404,
            "invalid_request_error",
            "not_found_error",
            "not_found",
            "No stored response or conversation has that id."),
    PATH_NOT_FOUND(404, "invalid_request_error", "not_found_error", "not_found", "This path is not served here."),
    MODEL_NOT_FOUND(
            404,
            "invalid_request_error",
            "not_found_error",
            "model_not_found",
            "No backend cluster serves the requested model."),
    CONFLICTING_IDS(
            400,
            "invalid_request_error",
            "invalid_request_error",
            "conflicting_ids",
            "The request names stored ids held by different backend clusters."),
    BODY_TOO_LARGE(
            413,
            "invalid_request_error",
            "request_too_large",
            "request_too_large",
            "The request body is larger than this gateway accepts."),
    BODY_TIMEOUT(
            408,
            "invalid_request_error",
            "invalid_request_error",
            "request_timeout",
            "The request body did not arrive in time."),
    METHOD_NOT_ALLOWED(
            405,
            "invalid_request_error",
            "invalid_request_error",
            "method_not_allowed",
            "This method is not allowed on this path."),
    METHOD_NOT_IMPLEMENTED(
            501,
            "invalid_request_error",
            "invalid_request_error",
            "method_not_implemented",
            "This method is not implemented here; methods are case-sensitive (POST, not post)."),
    INVALID_HEADER(
            400,
            "invalid_request_error",
            "invalid_request_error",
            "invalid_header",
            "A request header has an empty name, or a value with a byte outside visible US-ASCII."),
    HTTP_VERSION(
            505,
            "invalid_request_error",
            "invalid_request_error",
            "http_version_not_supported",
            "HTTP/1.0 is not supported; send HTTP/1.1 (behind nginx: proxy_http_version 1.1)."),
    MALFORMED_REQUEST(
            400,
            "invalid_request_error",
            "invalid_request_error",
            "invalid_request",
            "The request's head or framing is malformed or not supported here (RFC 9112); the connection is closed."),
    TARGET_TOO_LONG(
            414,
            "invalid_request_error",
            "invalid_request_error",
            "uri_too_long",
            "The request line is longer than this gateway accepts (4096 bytes)."),
    CODING_NOT_IMPLEMENTED(
            501,
            "invalid_request_error",
            "invalid_request_error",
            "not_implemented",
            "This transfer coding is not implemented here; send the body with Content-Length or chunked alone."),
    BODY_UNREADABLE(
            400,
            "invalid_request_error",
            "invalid_request_error",
            "invalid_body",
            "The request body could not be read: its framing is malformed or it ended early."),
    BODY_UNSCANNABLE(
            400,
            "invalid_request_error",
            "invalid_request_error",
            "invalid_json",
            "The request body is not one valid JSON text in UTF-8, so the stored ids it names cannot be read."),
    BODY_BUDGET(
            503,
            "server_error",
            "overloaded_error",
            "unavailable",
            "The gateway is holding too many request bodies now; retry later."),
    NONE_ADMITTED(
            503,
            "server_error",
            "overloaded_error",
            "unavailable",
            "No backend cluster can take this request now; retry later."),
    PINNED_UNAVAILABLE(
            503,
            "server_error",
            "overloaded_error",
            "unavailable",
            "The backend cluster that holds this id cannot take requests now; retry later."),
    INTERNAL_ERROR(500, "server_error", "api_error", "internal_error", "The gateway failed to handle this request."),
    UPSTREAM_UNREACHABLE(502, "server_error", "api_error", "bad_gateway", "The backend cluster could not be reached."),
    UPSTREAM_TIMEOUT(
            504, "server_error", "api_error", "gateway_timeout", "The backend cluster did not answer in time.");

    /** Seconds a client is told to wait before retrying a 503 (docs/design.md §5). */
    public static final int RETRY_AFTER_SECONDS = 5;

    private final int status;
    private final String openAiType;
    private final String anthropicType;
    private final String code;
    private final String message;

    ApiError(int status, String openAiType, String anthropicType, String code, String message) {
        this.status = status;
        this.openAiType = openAiType;
        this.anthropicType = anthropicType;
        this.code = code;
        this.message = message;
    }

    /** The HTTP status. */
    public int status() {
        return status;
    }

    /** Whether the answer carries {@code Retry-After}. */
    public boolean retries() {
        return status == 503;
    }

    /** The body in {@code shape}: the error shape of the API the request was made to. */
    public String body(ErrorShape shape) {
        return body(shape, Optional.empty());
    }

    /**
     * The body in {@code shape}, with the request id where that API's errors carry one: Anthropic's top-level
     * {@code request_id}, and an extra {@code request_id} in OpenAI's {@code error} object (clients read the fields
     * they know and ignore the rest). An id that is not well-formed is left out: only ids that need no escaping are
     * ever given here.
     */
    public String body(ErrorShape shape, Optional<String> requestId) {
        Optional<String> id = requestId.filter(RequestIds::wellFormed);
        return switch (shape) {
            case ANTHROPIC ->
                "{\"type\":\"error\",\"error\":{\"type\":\"" + anthropicType + "\",\"message\":\"" + message + "\"}"
                        + id.map(i -> ",\"request_id\":\"" + i + "\"").orElse("") + "}";
            case OPENAI ->
                "{\"error\":{\"message\":\"" + message + "\",\"type\":\"" + openAiType + "\",\"param\":null,\"code\":\""
                        + code + "\""
                        + id.map(i -> ",\"request_id\":\"" + i + "\"").orElse("") + "}}";
        };
    }
}
