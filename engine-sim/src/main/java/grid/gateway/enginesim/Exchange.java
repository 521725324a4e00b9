package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One request and its answer inside the simulator: what was recorded, the faults that apply, the error shape of its
 * API, and the ways to answer (a JSON body, an error, a stream).
 *
 * <p>Not thread-safe; one per request.
 */
final class Exchange {
    private final ServerRequest request;
    private final ServerResponse response;
    private final RecordedRequest recorded;
    private final FaultPlan faults;
    private final Pacer pacer;
    private final boolean closeAfterRejection;

    /**
     * One exchange of an engine with {@code settings}: its pacer paces streams, and its API surface says whether a
     * refused request's answer closes the connection as vLLM's does ({@link ApiSurface#resetAfterValidationError()}).
     */
    Exchange(
            ServerRequest request,
            ServerResponse response,
            RecordedRequest recorded,
            FaultPlan faults,
            EngineSettings settings) {
        this.request = requireNonNull(request, "request");
        this.response = requireNonNull(response, "response");
        this.recorded = requireNonNull(recorded, "recorded");
        this.faults = requireNonNull(faults, "faults");
        this.pacer = settings.pacer();
        this.closeAfterRejection = settings.api().resetAfterValidationError();
    }

    RecordedRequest recorded() {
        return recorded;
    }

    FaultPlan faults() {
        return faults;
    }

    /** The body as a JSON object, read from its bytes as vLLM reads them, or a 400 in this API's shape. */
    JsonObject json() {
        return JsonText.parseObject(recorded.bytes());
    }

    /** The first value of query parameter {@code name}. */
    Optional<String> query(String name) {
        return request.query().first(name).asOptional();
    }

    /**
     * Answers {@code json} with {@code status}; a scripted reset sends nothing (after zero events) or cuts the body
     * in half instead.
     */
    void answer(int status, JsonObject json) {
        byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
        response.status(Status.create(status));
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        if (faults.resetAfter().isEmpty()) {
            response.send(body);
            return;
        }
        if (faults.resetsAfter(0)) {
            throw new CloseConnectionException("scripted reset before the answer");
        }
        response.header(HeaderNames.CONTENT_LENGTH, Integer.toString(body.length));
        try {
            OutputStream out = response.outputStream();
            out.write(body, 0, body.length / 2);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new CloseConnectionException("scripted reset in the middle of a JSON body");
    }

    /** Answers 200 with no body, as vLLM's {@code /health} does. */
    void empty() {
        response.status(Status.OK_200);
        response.send();
    }

    /** Answers an error in the shape of this request's API, with {@code Retry-After} when given. */
    void fail(int status, String message, Optional<String> type, Optional<String> param) {
        ErrorShape shape = ErrorShape.forPath(recorded.path());
        response.status(Status.create(status));
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        response.send(shape.body(status, message, type, param).toString().getBytes(StandardCharsets.UTF_8));
    }

    /** Answers a scripted error status. */
    void fail(Fault.ErrorStatus error) {
        error.retryAfter()
                .ifPresent(after -> response.header(
                        HeaderNames.RETRY_AFTER, Long.toString(Math.max(0, (after.toMillis() + 999) / 1000))));
        fail(error.status(), "Simulated failure: " + error.status(), Optional.empty(), Optional.empty());
    }

    /**
     * Answers a rejected request. What vLLM refuses while validating a generation request is answered with
     * {@code Connection: close}, and the connection is closed once the whole answer is out (unless the answer is
     * scripted to stay keep-alive and reset later, {@link Fault.ResetAfterAnswer}).
     */
    void fail(RequestRejected rejected) {
        boolean close = closeAfterRejection && rejected.closesConnection() && !faults.resetAfterAnswer();
        if (close) {
            response.header(HeaderNames.CONNECTION, "close");
        }
        if (!rejected.carriesVary()) {
            ServerHeaders.withoutVary(response);
        }
        fail(
                rejected.status(),
                rejected.messageAt(recorded.method(), recorded.path()),
                rejected.type(),
                rejected.param());
        if (close) {
            throw new CloseConnectionException("closed after refusing the request, as vLLM closes it");
        }
    }

    /** Opens an event stream for this request's answer. */
    EventStream stream() {
        return new EventStream(response, faults, pacer);
    }
}
