package grid.gateway.app;

import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.config.ServerSettings;
import grid.gateway.app.http.BodyBudget;
import grid.gateway.app.http.GatewayRouting;
import grid.gateway.app.http.HeaderDeadline;
import grid.gateway.app.http.InFlightRequests;
import grid.gateway.app.http.ParseRefusal;
import grid.gateway.app.http.RequestLineKeeper;
import grid.gateway.app.http.SendWatch;
import grid.gateway.app.listen.ListenerGuard;
import grid.gateway.app.listen.OpenFiles;
import grid.gateway.app.listen.VirtualThreadIo;
import grid.gateway.app.observe.AdminRoutes;
import grid.gateway.app.observe.EdgeMeters;
import grid.gateway.app.observe.GatewayMetrics;
import grid.gateway.app.observe.Readiness;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.SystemMonotonicClock;
import io.helidon.common.tls.Tls;
import io.helidon.http.DirectHandler;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http.DirectHandlers;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http1.Http1Config;
import io.helidon.webserver.http1.Http1ConnectionSelector;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * The gateway's two listeners, built and started for {@link GatewayServer}: the client listener (the API paths) and
 * the admin listener (/metrics, /health, /route/explain), each guarded by the header deadline.
 *
 * <p>Stateless.
 */
final class Listeners {
    /** Helidon's own cut comes this long after the gateway's, so that the gateway's deadline is the one that acts. */
    private static final Duration HELIDON_GRACE_MARGIN = Duration.ofSeconds(5);
    /** The client listener's response stream buffer, in bytes (Helidon's default: 4096). */
    static final int RESPONSE_BUFFER = 1024;
    /**
     * Admin connections at most: probes and scrapes need a few; the cap keeps a flood of the admin port from taking
     * the descriptors {@code server.max_connections: auto} keeps back for everything but client connections.
     */
    static final int ADMIN_CONNECTIONS = 128;

    private static final System.Logger LOG = System.getLogger(Listeners.class.getName());

    private Listeners() {}

    /**
     * Where a listener binds and whether it serves TLS.
     *
     * @param host the address
     * @param tls the listener's TLS ({@code server.tls} or {@code server.admin_tls}); empty: plain HTTP
     */
    record Bind(String host, Optional<Tls> tls) {}

    /**
     * What the admin listener serves.
     *
     * @param registry the registry {@code /metrics} exposes
     * @param readiness answers {@code /health/ready}
     * @param explain answers {@code POST /route/explain}
     * @param snapshot the config in force (its {@code server.max_body_bytes} bounds a body's chunks)
     * @param budget the client listener's body budget, where the admin listener's bodies are held too
     * @param clock the runtime's monotonic clock, on which the admin listener's WARNING lines are rate-limited
     */
    record AdminParts(
            MeterRegistry registry,
            Readiness readiness,
            Handler explain,
            Supplier<GatewaySnapshot> snapshot,
            BodyBudget budget,
            MonotonicClock clock) {}

    /**
     * The admin listener: /metrics, /health and /route/explain, with the same header deadline as the client listener.
     */
    static WebServer admin(ServerSettings settings, Bind bind, HeaderDeadline headerDeadline, AdminParts parts) {
        // Before either listener takes a connection (a second call costs one pipe round): VirtualThreadIo says why.
        VirtualThreadIo.prime();
        WebServerConfig.Builder adminBuilder = WebServer.builder()
                .host(bind.host())
                .port(settings.adminPort())
                .maxTcpConnections(ADMIN_CONNECTIONS)
                // A connection waits for its next request line at most the header timeout, as a request's headers
                // do: one that sends nothing, or stops inside its request line (before the header deadline starts),
                // is closed then instead of after Helidon's five minutes, so that no client holding all 128 admin
                // connections keeps the health probes unanswered. Probes and scrapes open a connection again.
                .idleConnectionTimeout(settings.headerTimeout())
                .idleConnectionPeriod(idleSweepPeriod(settings.headerTimeout()))
                // The header deadline guards the admin listener too: a scrape port is as easy to hold open. Its
                // connections come through RequestLineKeeper too, which refuses a body chunk announced over
                // max_body_bytes before Helidon gathers it whole (an admin page reads no body, but Helidon reads
                // what is left of one to keep the connection), and reserves one it gathers in the clients' body
                // budget, as /route/explain reserves the body it reads: 128 admin connections each trickling a
                // chunk under max_body_bytes would otherwise hold memory nothing counts.
                .protocolsDiscoverServices(false)
                // HTTP/1.0 is served there, for health checkers that send it (AdminHttp10): Helidon's Host check,
                // which requires the field HTTP/1.0 need not send, is left to the receive listener.
                .addConnectionSelector(RequestLineKeeper.admin(
                        Http1ConnectionSelector.builder()
                                .config(Http1Config.builder()
                                        .addReceiveListener(RequestLineKeeper.adminReceiveListener(headerDeadline))
                                        .validateRequestHostHeader(false)
                                        .build())
                                .build(),
                        () -> parts.snapshot().get().config().server().maxBodyBytes(),
                        parts.budget()))
                // A head or framing Helidon's parser refuses is answered with its status and an empty body; the
                // admin listener says what was wrong, in the shape of its JSON errors.
                .directHandlers(refusals(ParseRefusal.onAdmin(parts.clock())))
                .shutdownHook(false);
        bind.tls().ifPresent(adminBuilder::tls);
        AdminRoutes.serve(adminBuilder, parts.registry(), parts.readiness(), parts.explain());
        return adminBuilder.build().start();
    }

    /**
     * How often the admin listener looks for connections idle past {@code timeout}: a quarter of it, between 100 ms
     * and 1 s (Helidon times a connection's idleness in whole seconds).
     */
    static Duration idleSweepPeriod(Duration timeout) {
        return Duration.ofMillis(Math.clamp(timeout.toMillis() / 4, 100L, 1_000L));
    }

    /**
     * One handler for every event Helidon's parser answers itself: HTTP/1.0 (505; the admin listener's reader gives
     * it none, AdminHttp10), a refused head or framing, and an internal error while reading a head (a client's stream
     * that ended inside it: closed without an answer).
     */
    private static DirectHandlers refusals(DirectHandler refusal) {
        return DirectHandlers.builder()
                .addHandler(DirectHandler.EventType.HTTP_VERSION_NOT_SUPPORTED, refusal)
                .addHandler(DirectHandler.EventType.BAD_REQUEST, refusal)
                .addHandler(DirectHandler.EventType.OTHER, refusal)
                .addHandler(DirectHandler.EventType.INTERNAL_ERROR, refusal)
                .build();
    }

    /** The client connection cap in force: {@code server.max_connections}, or under {@code auto} from the open-file limit. */
    private static int connectionCap(ServerSettings settings) {
        OptionalLong limit = OpenFiles.limit();
        int cap = settings.binding().connectionCap(limit);
        if (settings.binding().maxConnections() == ServerSettings.Binding.AUTO) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "client connections at most " + (cap == 0 ? "unlimited" : cap) + " (server.max_connections: auto;"
                            + " open-file limit " + (limit.isPresent() ? limit.getAsLong() : "unknown") + ")");
        }
        return cap;
    }

    /**
     * The send timeout (of the config in force) of every write on both listeners, swept on {@code scheduler}, cuts
     * counted in {@code metrics}. Socket deadlines run on real time, as the relay's alarms do.
     */
    static SendWatch sendWatch(
            ScheduledExecutorService scheduler, Supplier<GatewaySnapshot> snapshot, GatewayMetrics metrics) {
        Supplier<Duration> timeout = () -> snapshot.get().config().server().sendTimeout();
        return new SendWatch(scheduler, SystemMonotonicClock.INSTANCE, timeout, metrics.edge()).start();
    }

    /**
     * Guards a started listener's accepts ({@link ListenerGuard}), its connections' writes watched by {@code sends},
     * and registers its gauges in {@code meters}.
     */
    static ListenerGuard guard(WebServer listener, Bind bind, String name, EdgeMeters meters, SendWatch sends) {
        ListenerGuard guard = ListenerGuard.guard(listener, bind.host(), name, meters, sends.listener(name));
        meters.listener(name, guard::accepting);
        return guard;
    }

    /** The client listener: every request passes the in-flight filter, then the gateway's routing. */
    static WebServer client(
            ServerSettings settings,
            Bind bind,
            HeaderDeadline headerDeadline,
            InFlightRequests inFlight,
            GatewayRouting.Parts parts) {
        VirtualThreadIo.prime();
        int maxConnections = connectionCap(settings);
        WebServerConfig.Builder builder = WebServer.builder();
        bind.tls().ifPresent(builder::tls);
        return builder.host(bind.host())
                .port(settings.port())
                .maxTcpConnections(maxConnections == 0 ? -1 : maxConnections)
                .connectionOptions(o -> o.tcpNoDelay(true))
                // The response stream's buffer is allocated for every answer written through the stream (a streamed
                // relay; a whole one is sent without it); the relay writes each read or event in one call and flushes
                // after it, so a bigger buffer only costs memory: 1 KiB instead of Helidon's 4 KiB, about 3 KiB less
                // a streamed answer, the same writes (docs/design.md §H16).
                .writeBufferSize(RESPONSE_BUFFER)
                // Our HTTP/1 selector replaces the discovered protocol: with both, a new connection has two candidate
                // protocols and waits for its first bytes to choose, and a stop does not close it as idle. It is
                // Helidon's own, wrapped so that the handler sees each request line as sent (RequestLineKeeper).
                .protocolsDiscoverServices(false)
                .addConnectionSelector(new RequestLineKeeper(
                        Http1ConnectionSelector.builder()
                                .config(Http1Config.builder()
                                        .addReceiveListener(RequestLineKeeper.receiveListener(headerDeadline))
                                        // Request headers are checked here, as they arrive: the
                                        // forwarder then sends them unchecked.
                                        .validateRequestHeaders(true)
                                        // Host is checked by the receive listener, as on the admin listener
                                        // (HostField): Helidon's full check takes a signed port (gw:-1).
                                        .validateRequestHostHeader(false)
                                        // Every answer header is either the gateway's own or a
                                        // cluster's, which the upstream reader checked as it read it:
                                        // checking each again on the way out cost about 1% of the CPU a
                                        // request.
                                        .validateResponseHeaders(false)
                                        .build())
                                .build(),
                        () -> parts.snapshot().get().config().server().maxBodyBytes(),
                        parts.budget()))
                // HTTP/1.0 is refused (505) in the API's error shape, saying why; so is a head or framing Helidon's
                // parser refuses, which Helidon answers with an empty body (ParseRefusal).
                .directHandlers(refusals(GatewayRouting.parseRefusal(parts)))
                .featuresDiscoverServices(false)
                // The gateway stops itself (shutdown) and cuts what is left at its own deadline; Helidon's grace
                // only has to be longer, so that it never cuts first.
                .shutdownHook(false)
                .shutdownGracePeriod(settings.shutdownGrace().plus(HELIDON_GRACE_MARGIN))
                .routing(r -> {
                    r.addFilter(inFlight);
                    GatewayRouting.register(r, parts);
                })
                .build()
                .start();
    }
}
