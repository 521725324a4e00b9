package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.Optional;

/**
 * The two error bodies (docs/design.md §A7): vLLM's OpenAI-style envelope
 * {@code {"error":{"message","type","param","code":<status>}}}, with PascalCase types derived from the status, and
 * Anthropic's {@code {"type":"error","error":{"type","message"}}} for {@code /v1/messages…}.
 *
 * <p>Stateless and thread-safe.
 */
enum ErrorShape {
    OPENAI,
    ANTHROPIC;

    /** The shape of the API that {@code path} belongs to. */
    static ErrorShape forPath(String path) {
        return path.equals("/v1/messages") || path.startsWith("/v1/messages/") ? ANTHROPIC : OPENAI;
    }

    /** The error body for {@code status}; {@code type} overrides the OpenAI type the status implies. */
    JsonObject body(int status, String message, Optional<String> type, Optional<String> param) {
        requireNonNull(message, "message");
        if (this == ANTHROPIC) {
            return JsonText.object()
                    .add("type", "error")
                    .add(
                            "error",
                            JsonText.object().add("type", anthropicType(status)).add("message", message))
                    .build();
        }
        JsonObjectBuilder error =
                JsonText.object().add("message", message).add("type", type.orElseGet(() -> openAiType(status)));
        param.ifPresentOrElse(p -> error.add("param", p), () -> error.addNull("param"));
        return JsonText.object().add("error", error.add("code", status)).build();
    }

    static String openAiType(int status) {
        return switch (status) {
            case 400 -> "BadRequestError";
            case 401 -> "UnauthorizedError";
            case 403 -> "ForbiddenError";
            case 404 -> "NotFoundError";
            case 405 -> "MethodNotAllowedError";
            case 413 -> "RequestTooLargeError";
            case 422 -> "UnprocessableEntityError";
            case 429 -> "RateLimitError";
            case 501 -> "NotImplementedError";
            case 503 -> "ServiceUnavailableError";
            case 504 -> "GatewayTimeoutError";
            default -> status < 500 ? "BadRequestError" : "InternalServerError";
        };
    }

    static String anthropicType(int status) {
        return switch (status) {
            case 400 -> "invalid_request_error";
            case 401 -> "authentication_error";
            case 402 -> "billing_error";
            case 403 -> "permission_error";
            case 404 -> "not_found_error";
            case 413 -> "request_too_large";
            case 429 -> "rate_limit_error";
            case 503, 529 -> "overloaded_error";
            case 504 -> "timeout_error";
            default -> status < 500 ? "invalid_request_error" : "api_error";
        };
    }
}
