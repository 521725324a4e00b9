package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeSet;

/**
 * The simulator's one request handler: {@code /metrics} scrapes are counted and answered (held first while the
 * {@link Frontend} stalls them); every other request is recorded, takes its scripted faults, and goes to its
 * endpoint. Unknown paths answer FastAPI's {@code {"detail":"Not Found"}} 404, and a known path with another method
 * its 405 with {@code Allow}, as vLLM does. A request on a connection whose last answer was scripted as its last
 * ({@link Fault.ResetAfterAnswer}) finds the connection reset instead.
 *
 * <pre>
 *   request ─▶ doomed connection? ─▶ reset, nothing recorded
 *           ├▶ /metrics? ─▶ scrape count, stall?, exposition
 *           └▶ RequestLog.record ─▶ x-sim-fault header, else FaultScript.take ─▶ ErrorStatus? ─▶ error in the API's shape
 *                                                     └▶ endpoint(method, path) ─▶ API class ─▶ SimulatedEngine
 *              ─▶ ResetAfterAnswer? ─▶ the connection is doomed
 * </pre>
 *
 * <p>Thread-safe: every request runs on its own virtual thread and shares only thread-safe parts.
 */
final class EngineRoutes {
    /** One endpoint of the simulator. */
    @FunctionalInterface
    interface Endpoint {
        void serve(Exchange exchange) throws InterruptedException;
    }

    private final Parts parts;
    private final ServerHeaders serverHeaders;

    /** Everything the routes dispatch to. */
    record Parts(
            RequestLog log,
            FaultScript script,
            EngineMetrics metrics,
            InFlight inFlight,
            EngineSettings settings,
            EndpointTable endpoints,
            ConnectionResets resets) {
        Parts {
            requireNonNull(log, "log");
            requireNonNull(script, "script");
            requireNonNull(metrics, "metrics");
            requireNonNull(inFlight, "inFlight");
            requireNonNull(settings, "settings");
            requireNonNull(endpoints, "endpoints");
            requireNonNull(resets, "resets");
        }
    }

    EngineRoutes(Parts parts) {
        this.parts = requireNonNull(parts, "parts");
        this.serverHeaders = new ServerHeaders(parts.settings().wallClock());
    }

    void handle(ServerRequest request, ServerResponse response) {
        if (parts.resets().take(request)) {
            throw new CloseConnectionException("reset: the answer before was scripted as this connection's last");
        }
        parts.inFlight().enter();
        serverHeaders.set(response);
        try {
            if (request.path().rawPath().equals("/metrics")) {
                scrape(response);
                return;
            }
            RecordedRequest recorded = parts.log().record(request);
            FaultPlan faults;
            try {
                faults = recorded.header(FaultHeader.NAME)
                        .map(value -> FaultPlan.of(FaultHeader.parse(value)))
                        .orElseGet(() -> parts.script().take(recorded.path()));
            } catch (IllegalArgumentException badHeader) {
                detail(response, Status.BAD_REQUEST_400, Map.of());
                return;
            }
            Exchange exchange = new Exchange(request, response, recorded, faults, parts.settings());
            serve(exchange, recorded, response);
            if (faults.resetAfterAnswer()) {
                parts.resets().doom(request);
            }
        } catch (UncheckedIOException | ServerConnectionException peerGone) {
            // A write failed because the peer went away (a scripted reset throws CloseConnectionException itself).
            parts.log().abandoned();
            throw peerGone;
        } catch (InterruptedException e) {
            throw new CloseConnectionException("the simulator is closing", e);
        } finally {
            parts.inFlight().leave();
        }
    }

    private void serve(Exchange exchange, RecordedRequest recorded, ServerResponse response)
            throws InterruptedException {
        try {
            if (exchange.faults().error().isPresent()) {
                exchange.fail(exchange.faults().error().get());
                return;
            }
            Map<String, Endpoint> byMethod = parts.endpoints().find(recorded.path());
            Endpoint endpoint = byMethod.get(recorded.method());
            if (byMethod.isEmpty() || endpoint == null) {
                detail(response, byMethod.isEmpty() ? Status.NOT_FOUND_404 : Status.METHOD_NOT_ALLOWED_405, byMethod);
                return;
            }
            endpoint.serve(exchange);
        } catch (RequestRejected rejected) {
            exchange.fail(rejected);
        }
    }

    /** Answers a scrape: 503 while scrapes fail; held through the pacer while the frontend stalls it. */
    private void scrape(ServerResponse response) throws InterruptedException {
        parts.log().scraped();
        if (parts.metrics().scrapesFail()) {
            response.status(Status.SERVICE_UNAVAILABLE_503).send();
            return;
        }
        parts.settings().pacer().pause(parts.metrics().scrapeStall());
        response.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
        response.send(parts.metrics().exposition());
    }

    /** FastAPI's {@code {"detail": …}} answer; a 405 names the path's methods in {@code Allow}. */
    private static void detail(ServerResponse response, Status status, Map<String, Endpoint> byMethod) {
        response.status(status);
        if (status.code() == Status.METHOD_NOT_ALLOWED_405.code()) {
            response.header(HeaderNames.ALLOW, String.join(", ", new TreeSet<>(byMethod.keySet())));
        }
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        response.send("{\"detail\":\"" + status.reasonPhrase() + "\"}");
    }
}
