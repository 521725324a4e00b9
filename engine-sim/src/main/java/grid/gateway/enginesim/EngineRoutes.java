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

/**
 * The simulator's one request handler: {@code /metrics} scrapes are counted and answered; every other request is
 * recorded, takes its scripted faults, and goes to its endpoint. Unknown paths answer FastAPI's
 * {@code {"detail":"Not Found"}} 404, and a known path with another method its 405, as vLLM does.
 *
 * <pre>
 *   request ─▶ /metrics? ─▶ scrape count, exposition
 *           └▶ RequestLog.record ─▶ x-sim-fault header, else FaultScript.take ─▶ ErrorStatus? ─▶ error in the API's shape
 *                                                     └▶ endpoint(method, path) ─▶ API class ─▶ SimulatedEngine
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

    /** Everything the routes dispatch to. */
    record Parts(
            RequestLog log,
            FaultScript script,
            EngineMetrics metrics,
            InFlight inFlight,
            Pacer pacer,
            EndpointTable endpoints) {
        Parts {
            requireNonNull(log, "log");
            requireNonNull(script, "script");
            requireNonNull(metrics, "metrics");
            requireNonNull(inFlight, "inFlight");
            requireNonNull(pacer, "pacer");
            requireNonNull(endpoints, "endpoints");
        }
    }

    EngineRoutes(Parts parts) {
        this.parts = requireNonNull(parts, "parts");
    }

    void handle(ServerRequest request, ServerResponse response) {
        if (request.path().rawPath().equals("/metrics")) {
            parts.log().scraped();
            if (parts.metrics().scrapesFail()) {
                response.status(Status.SERVICE_UNAVAILABLE_503).send();
                return;
            }
            response.header(HeaderNames.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
            response.send(parts.metrics().exposition());
            return;
        }
        RecordedRequest recorded = parts.log().record(request);
        FaultPlan faults;
        try {
            faults = recorded.header(FaultHeader.NAME)
                    .map(value -> FaultPlan.of(FaultHeader.parse(value)))
                    .orElseGet(() -> parts.script().take(recorded.path()));
        } catch (IllegalArgumentException badHeader) {
            detail(response, Status.BAD_REQUEST_400);
            return;
        }
        Exchange exchange = new Exchange(request, response, recorded, faults, parts.pacer());
        parts.inFlight().enter();
        try {
            if (faults.error().isPresent()) {
                exchange.fail(faults.error().get());
                return;
            }
            Map<String, Endpoint> byMethod = parts.endpoints().find(recorded.path());
            Endpoint endpoint = byMethod.get(recorded.method());
            if (byMethod.isEmpty() || endpoint == null) {
                detail(response, byMethod.isEmpty() ? Status.NOT_FOUND_404 : Status.METHOD_NOT_ALLOWED_405);
                return;
            }
            endpoint.serve(exchange);
        } catch (RequestRejected rejected) {
            exchange.fail(rejected);
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

    private static void detail(ServerResponse response, Status status) {
        response.status(status);
        response.header(HeaderNames.CONTENT_TYPE, "application/json");
        response.send("{\"detail\":\"" + status.reasonPhrase() + "\"}");
    }
}
