package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.io.Serial;
import java.util.Optional;

/**
 * A request the simulator refuses the way vLLM would (a malformed body, an unknown model, an unknown stored id).
 * Thrown anywhere below the router and answered in one place, in the error shape of the request's API.
 *
 * <p>Immutable. The simulator's only exception type.
 */
final class RequestRejected extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int status;
    private final Optional<String> type;
    private final Optional<String> param;

    private RequestRejected(int status, Optional<String> type, String message, Optional<String> param) {
        super(requireNonNull(message, "message"), null, false, false);
        this.status = status;
        this.type = type;
        this.param = param;
    }

    /** A 400 about {@code param}. */
    static RequestRejected badRequest(String message, String param) {
        return new RequestRejected(400, Optional.empty(), message, Optional.of(param));
    }

    /** A 400 about the body as a whole. */
    static RequestRejected badRequest(String message) {
        return new RequestRejected(400, Optional.empty(), message, Optional.empty());
    }

    /** A 400 typed {@code invalid_request_error}, as vLLM types its Responses refusals. */
    static RequestRejected invalid(String message, String param) {
        return new RequestRejected(400, Optional.of("invalid_request_error"), message, Optional.of(param));
    }

    /** A 404 about the unknown value of {@code param}, typed {@code invalid_request_error} as vLLM types them. */
    static RequestRejected notFound(String message, String param) {
        return new RequestRejected(404, Optional.of("invalid_request_error"), message, Optional.of(param));
    }

    /** A 404 with the type derived from the status ({@code NotFoundError}), as for an unknown model. */
    static RequestRejected modelNotFound(String model) {
        return new RequestRejected(
                404, Optional.empty(), "The model `" + model + "` does not exist.", Optional.of("model"));
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
}
