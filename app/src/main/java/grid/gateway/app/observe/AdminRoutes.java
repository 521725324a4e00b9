package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.http.HandlerFailure;
import grid.gateway.app.http.RequestLineKeeper;
import grid.gateway.app.listen.CloseWhenAsked;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.FilterChain;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.RoutingRequest;
import io.helidon.webserver.http.RoutingResponse;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import io.helidon.webserver.observe.ObserveFeature;
import io.helidon.webserver.observe.metrics.MetricsObserver;
import java.util.List;
import java.util.Optional;

/**
 * The admin listener's endpoints (docs/design.md §10), served only on the socket named {@value #SOCKET}:
 *
 * <pre>
 * GET /metrics        Prometheus text 0.0.4 (OpenMetrics 1.0.0 on Accept) of the registry, each format's full media
 *                     type, and 406 when Accept prefers JSON ({@link ExpositionFormats}); every answer of /metrics
 *                     and the paths below it is {@link MetricsPage}'s (Helidon's ObserveFeature, bound to that
 *                     socket, still counts the listener's requests in its vendor scope)
 * GET /health/live    200 "live" while the process serves requests; 503 "not live: client listener stopped accepting
 *                     connections" once the client listener's socket closed while the gateway was not stopping
 * GET /health/ready   200 "ready" once {@link Readiness#isReady()}, else 503 "not ready: &lt;what is missing&gt;"
 * POST /route/explain what the router would do with a request now, and why (the gateway's admin server only;
 *                     docs/operations.md, "Why did it go there?")
 * </pre>
 *
 * <p>Stateless; the handlers are thread-safe.
 */
public final class AdminRoutes {
    /** The name of the admin listener's socket. */
    public static final String SOCKET = "admin";

    private AdminRoutes() {}

    /**
     * Adds {@code /metrics}, {@code /health/live} and {@code /health/ready} to the {@value #SOCKET} socket of
     * {@code server}, which must already be declared ({@code putSocket(AdminRoutes.SOCKET, s -> s.port(...))}).
     *
     * <p>Also turns off the server's discovery of features: with {@code helidon-webserver-observe} on the class
     * path, Helidon would otherwise load a second {@link ObserveFeature} that serves {@code /observe/metrics} on the
     * client socket (docs/design.md §H14). The gateway adds every feature it uses explicitly.
     *
     * @param server the builder of the gateway's web server
     * @param registry the registry {@code /metrics} exposes, the one {@link GatewayMetrics} writes to
     * @param readiness answers {@code /health/ready}
     * @throws IllegalArgumentException if {@code server} has no {@value #SOCKET} socket
     */
    public static void addTo(WebServerConfig.Builder server, MeterRegistry registry, Readiness readiness) {
        requireNonNull(server, "server");
        requireNonNull(registry, "registry");
        requireNonNull(readiness, "readiness");
        if (!server.sockets().containsKey(SOCKET)) {
            throw new IllegalArgumentException(
                    "the web server has no \"" + SOCKET + "\" socket; declare it with putSocket before adding routes");
        }
        install(server, SOCKET, registry, readiness, Optional.empty());
    }

    /**
     * Makes {@code server} an admin server of its own: {@code /metrics}, {@code /health/live} and
     * {@code /health/ready} on its default socket. The gateway runs its admin endpoints this way, so that they keep
     * answering (ready: 503) while the client listener drains at shutdown.
     *
     * @param server the builder of the admin web server
     * @param registry the registry {@code /metrics} exposes, the one {@link GatewayMetrics} writes to
     * @param readiness answers {@code /health/ready}
     */
    public static void serve(WebServerConfig.Builder server, MeterRegistry registry, Readiness readiness) {
        requireNonNull(server, "server");
        requireNonNull(registry, "registry");
        requireNonNull(readiness, "readiness");
        install(server, WebServer.DEFAULT_SOCKET_NAME, registry, readiness, Optional.empty());
    }

    /** {@link #serve(WebServerConfig.Builder, MeterRegistry, Readiness)} with {@code POST /route/explain}. */
    public static void serve(
            WebServerConfig.Builder server, MeterRegistry registry, Readiness readiness, Handler explain) {
        requireNonNull(server, "server");
        requireNonNull(registry, "registry");
        requireNonNull(readiness, "readiness");
        requireNonNull(explain, "explain");
        install(server, WebServer.DEFAULT_SOCKET_NAME, registry, readiness, Optional.of(explain));
    }

    private static void install(
            WebServerConfig.Builder server,
            String socket,
            MeterRegistry registry,
            Readiness readiness,
            Optional<Handler> explain) {
        server.featuresDiscoverServices(false)
                .addFeature(ObserveFeature.builder()
                        .endpoint("/")
                        .sockets(List.of(socket))
                        .observersDiscoverServices(false)
                        .addObserver(MetricsObserver.builder()
                                .endpoint("/metrics")
                                .meterRegistry(registry)
                                .build())
                        .build());
        if (socket.equals(WebServer.DEFAULT_SOCKET_NAME)) {
            server.routing(routing -> {
                // What a page's handler threw is kept for the WARNING that says it failed (HandlerFailure).
                routing.error(Throwable.class, HandlerFailure::remember)
                        .addFilter(CloseWhenAsked.INSTANCE)
                        .addFilter(AdminRoutes::closeAfterHttp10)
                        .addFilter(new AdminMethods(explain.isPresent()))
                        .addFilter(ExpositionFormats.INSTANCE);
                MetricsPage.route(routing, registry);
                health(routing, readiness);
                explain.ifPresent(handler -> routing.post("/route/explain", handler));
            });
        } else {
            server.routing(socket, routing -> {
                routing.addFilter(new AdminMethods(false)).addFilter(ExpositionFormats.INSTANCE);
                MetricsPage.route(routing, registry);
                health(routing, readiness);
            });
        }
    }

    /**
     * An answer to an HTTP/1.0 request (served on the gateway's admin listener, {@code AdminHttp10}) closes its
     * connection: HTTP/1.0 keeps none open without its own keep-alive protocol, and a client that reads to the end
     * of the connection must find it. Every admin answer is written whole, with {@code Content-Length}.
     */
    private static void closeAfterHttp10(FilterChain chain, RoutingRequest req, RoutingResponse res) {
        if (RequestLineKeeper.http10()) {
            res.header(HeaderValues.CONNECTION_CLOSE);
        }
        chain.proceed();
    }

    private static void health(HttpRouting.Builder routing, Readiness readiness) {
        routing.get("/health/live", (req, res) -> live(res, readiness))
                .get("/health/ready", (req, res) -> ready(req, res, readiness));
    }

    private static void live(ServerResponse res, Readiness readiness) {
        Optional<String> dead = readiness.notLive();
        if (dead.isEmpty()) {
            answer(res, Status.OK_200, "live");
        } else {
            answer(res, Status.SERVICE_UNAVAILABLE_503, "not live: " + dead.get());
        }
    }

    private static void ready(ServerRequest req, ServerResponse res, Readiness readiness) {
        Optional<String> missing = readiness.missing();
        if (missing.isEmpty()) {
            answer(res, Status.OK_200, "ready");
        } else {
            answer(res, Status.SERVICE_UNAVAILABLE_503, "not ready: " + missing.get());
        }
    }

    private static void answer(ServerResponse res, Status status, String text) {
        res.status(status).header(HeaderValues.CACHE_NO_CACHE).send(text + "\n");
    }
}
