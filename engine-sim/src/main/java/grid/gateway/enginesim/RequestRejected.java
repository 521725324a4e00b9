package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.Serial;
import java.util.Optional;

/**
 * A request the simulator refuses the way vLLM would (a malformed body, an unknown model, a prompt longer than the
 * context, an unknown stored id). Thrown anywhere below the router and answered in one place, in the error shape of
 * the request's API.
 *
 * <p>Whether the answer closes the connection follows the recordings ({@code testdata/vllm/}): vLLM answers what it
 * refuses while validating a generation request (an unknown model, a body that fails validation, a prompt or output
 * limit beyond the context) with {@code Connection: close} and then closes the connection; what its Responses store
 * refuses (an unknown id, a cancel of a finished response) keeps the connection open.
 *
 * <p>Immutable. The simulator's only exception type.
 */
final class RequestRejected extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** The type vLLM gives a body that fails its request model's validation (pydantic), with a space. */
    static final String VALIDATION_TYPE = "Bad Request";

    /** The source file of vLLM's wrapper around its request handlers, as paths inside answers are recorded. */
    private static final String HANDLER_SOURCE = "/opt/venv/lib/python3.11/site-packages/vllm/entrypoints/utils.py";

    private final int status;
    private final Optional<String> type;
    private final Optional<String> param;
    private final boolean closesConnection;
    private final Optional<String> validationError;

    private RequestRejected(int status, Optional<String> type, String message, Optional<String> param, boolean close) {
        super(requireNonNull(message, "message"), null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.closesConnection = close;
        this.validationError = Optional.empty();
    }

    /**
     * A body refused by vLLM's request model: pydantic's {@code error}, which ends the message, and the parameter of
     * the {@code VLLMValidationError} it carries, if any (vLLM's handler takes the param from there).
     */
    private RequestRejected(String error, Optional<String> param) {
        super("1 validation error:\n  " + error, null, false, false);
        this.status = 400;
        this.type = Optional.of(VALIDATION_TYPE);
        this.param = param;
        this.closesConnection = true;
        this.validationError = Optional.of(error);
    }

    /** A 400 about {@code param}, found while validating the request. */
    static RequestRejected badRequest(String message, String param) {
        return new RequestRejected(400, Optional.empty(), message, Optional.of(param), true);
    }

    /** A 400 about the body as a whole, found while validating the request. */
    static RequestRejected badRequest(String message) {
        return new RequestRejected(400, Optional.empty(), message, Optional.empty(), true);
    }

    /**
     * vLLM's answer to a body its request model refuses (a required field missing): type {@value #VALIDATION_TYPE},
     * no param, and pydantic's report as the message, the refused body quoted as Python writes it; the frame that
     * raised it is added where the path is known ({@link #messageAt}).
     */
    static RequestRejected missing(String field, JsonObject body) {
        return validation(
                "missing", "'body', '" + field + "'", "Field required", PythonRepr.of(body), Optional.empty());
    }

    /**
     * vLLM's answer to any body FastAPI's request validation refuses (a field missing or of the wrong type, a body
     * that is not an object, text that is not JSON): one pydantic error, {@code {'type', 'loc', 'msg', 'input'}} and
     * for a JSON decode error its {@code ctx}, written as Python writes it; answered as {@link #missing} is.
     *
     * @param loc the location inside {@code ('body', …)}: {@code 'body', 'model'}, {@code 'body', 12} or {@code 'body',}
     * @param input the refused input as Python writes it
     * @param ctxError the {@code ctx} error of a JSON decode error
     */
    static RequestRejected validation(String type, String loc, String msg, String input, Optional<String> ctxError) {
        return new RequestRejected(
                "{'type': '" + type + "', 'loc': (" + loc + "), 'msg': '" + msg + "', 'input': " + input
                        + ctxError.map(e -> ", 'ctx': {'error': " + PythonRepr.of(JsonText.string(e)) + "}")
                                .orElse("")
                        + "}",
                Optional.empty());
    }

    /**
     * vLLM's answer to a body one of its request model's own checks refuses with a plain {@code ValueError} (a
     * {@code model_validator(mode="before")}, which runs before any field is read): pydantic's {@code value_error}
     * at {@code ('body',)} with the whole body as input and the exception in {@code ctx}, param null; answered as
     * {@link #missing} is.
     */
    static RequestRejected valueError(String message, JsonObject body) {
        return modelCheck("ValueError", message, message, Optional.empty(), body);
    }

    /**
     * As {@link #valueError}, for a check that raises vLLM's {@code VLLMValidationError}: its text ends with
     * {@code (parameter=…, value=…)}, and vLLM's handler answers with that parameter as the param.
     */
    static RequestRejected vllmValidation(
            String message, String parameter, Optional<JsonValue> value, JsonObject body) {
        String text = message + " (parameter=" + parameter
                + value.map(v -> ", value=" + PythonRepr.of(v)).orElse("") + ")";
        return modelCheck("VLLMValidationError", message, text, Optional.of(parameter), body);
    }

    private static RequestRejected modelCheck(
            String exception, String message, String text, Optional<String> param, JsonObject body) {
        return new RequestRejected(
                "{'type': 'value_error', 'loc': ('body',), 'msg': "
                        + PythonRepr.of(JsonText.string("Value error, " + text))
                        + ", 'input': " + PythonRepr.of(body) + ", 'ctx': {'error': " + exception + "("
                        + PythonRepr.of(JsonText.string(message)) + ")}}",
                param);
    }

    /** A 400 typed {@code invalid_request_error}, as vLLM types its Responses refusals; the connection stays open. */
    static RequestRejected invalid(String message, String param) {
        return new RequestRejected(400, Optional.of("invalid_request_error"), message, Optional.of(param), false);
    }

    /**
     * A 404 about the unknown value of {@code param}, typed {@code invalid_request_error} as vLLM types them; the
     * connection stays open.
     */
    static RequestRejected notFound(String message, String param) {
        return new RequestRejected(404, Optional.of("invalid_request_error"), message, Optional.of(param), false);
    }

    /** A 404 with the type derived from the status ({@code NotFoundError}), as for an unknown model. */
    static RequestRejected modelNotFound(String model) {
        return new RequestRejected(
                404, Optional.empty(), "The model `" + model + "` does not exist.", Optional.of("model"), true);
    }

    /**
     * The message as vLLM words it for {@code method} on {@code path}: a validation error ends with the frame of
     * vLLM's request handler that raised it and the request line with pydantic's error list, as recorded
     * ({@code testdata/vllm/error_bad_json.json}).
     */
    String messageAt(String method, String path) {
        // getMessage() is never null: the constructor requires a message.
        String message = requireNonNull(getMessage());
        return validationError
                .map(error -> message + "\n\n  File \"" + HANDLER_SOURCE + "\", line 40, in " + handler(path) + "\n    "
                        + method + " " + path + " [" + error + "]")
                .orElse(message);
    }

    /** The name of vLLM's handler function for {@code path}. */
    private static String handler(String path) {
        return switch (path) {
            case "/v1/completions" -> "create_completion";
            case "/v1/messages" -> "create_messages";
            case "/v1/responses" -> "create_responses";
            default -> "create_chat_completion";
        };
    }

    /**
     * Whether vLLM's answer carries its CORS middleware's {@code vary: Origin}: the recorded answers to a prompt or
     * output limit beyond the context (a 400 of the type the status implies) carry none, the others do.
     */
    boolean carriesVary() {
        return !(status == 400 && type.isEmpty());
    }

    int status() {
        return status;
    }

    /** The OpenAI-shape type when it is not the one the status implies. */
    Optional<String> type() {
        return type;
    }

    Optional<String> param() {
        return param;
    }

    /** Whether vLLM closes the connection after this answer. */
    boolean closesConnection() {
        return closesConnection;
    }
}
