package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

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

    private final int status;
    private final Optional<String> type;
    private final Optional<String> param;
    private final boolean closesConnection;

    private RequestRejected(int status, Optional<String> type, String message, Optional<String> param, boolean close) {
        super(requireNonNull(message, "message"), null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
        this.closesConnection = close;
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
     * no param, and pydantic's report as the message.
     */
    static RequestRejected missing(String field, String body) {
        String message = "1 validation error:\n  {'type': 'missing', 'loc': ('body', '" + field
                + "'), 'msg': 'Field required', 'input': " + body + "}";
        return new RequestRejected(400, Optional.of(VALIDATION_TYPE), message, Optional.empty(), true);
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
