package grid.gateway.app;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.ConfigWatcher;
import grid.gateway.app.config.GatewayConfig;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.config.ReloadListener;
import grid.gateway.app.config.ServerSettings;
import grid.gateway.app.forward.ResponseRelay;
import grid.gateway.app.forward.UpstreamForwarder;
import grid.gateway.app.http.BodyBudget;
import grid.gateway.app.http.ExplainHandler;
import grid.gateway.app.http.GatewayRouting;
import grid.gateway.app.http.HeaderDeadline;
import grid.gateway.app.http.InFlightRequests;
import grid.gateway.app.http.RouteExplainer;
import grid.gateway.app.http.SendWatch;
import grid.gateway.app.listen.ListenerGuard;
import grid.gateway.app.listen.OpenFiles;
import grid.gateway.app.load.QueueScraper;
import grid.gateway.app.observe.ClusterState;
import grid.gateway.app.observe.GatewayMetrics;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.Readiness;
import grid.gateway.app.sharing.RedisSharing;
import grid.gateway.app.tls.GatewayTls;
import grid.gateway.app.tls.Undo;
import grid.gateway.app.trace.Tracing;
import grid.gateway.routing.RoutingParts;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import io.helidon.webserver.WebServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The composition root: builds every stateful part from a {@link GatewaySnapshot} and a {@link GatewayRuntime}, and starts
 * the client and admin listeners. Tests call the same {@link #start} with a manual clock and a seeded random source.
 *
 * <pre>
 *   config file ──ConfigWatcher──> apply(snapshot) ──> SiteRouter.reconfigure, window, metrics, upstream pool
 *   client server ──> InFlightRequests ──> ProxyHandler ──> SiteRouter ──> UpstreamForwarder ──> ResponseRelay
 *   admin server  ──> /metrics, /health/live, /health/ready, /route/explain   (a server of its own: it outlives the
 *                     client drain)
 *   scheduler     ──> QueueScraper rounds, prefix expiry, idle-timeout alarms, header and body deadlines
 * </pre>
 *
 * <p>{@link #shutdown()} stops gracefully (SIGTERM); {@link #close()} stops at once. Thread-safe: {@link #apply} swaps
 * the snapshot atomically; listener ports never change after start; stopping is serialised and happens once.
 */
public final class GatewayServer implements AutoCloseable {
    /** Helidon's default grace, kept for {@link #close()}. */
    private static final long CLOSE_GRACE_MILLIS = 500;

    private final AtomicReference<GatewaySnapshot> snapshot;
    private final ScheduledExecutorService scheduler;
    private final QueueDepthWindow window;
    private final SiteRouter router;
    private final GatewayMetrics metrics;
    private final QueueScraper scraper;
    private final UpstreamForwarder forwarder;
    private final ResponseRelay relay;
    private final Optional<RedisSharing> sharing;
    private final Tracing tracing;
    private final Duration shutdownGrace;
    private final Duration shutdownDelay;
    private final CountDownLatch delayEnded = new CountDownLatch(1);
    private final Readiness readiness = new Readiness();
    private final InFlightRequests inFlight = new InFlightRequests();
    private final BodyBudget budget;
    private final WebServer server;
    private final WebServer admin;
    private final ReentrantLock stopping = new ReentrantLock();
    private final GatewayTls tls;
    private volatile @Nullable ConfigWatcher watcher;
    private @Nullable ShutdownReport stopped;

    private GatewayServer(GatewaySnapshot initial, GatewayRuntime runtime) {
        this.snapshot = new AtomicReference<>(initial);
        this.scheduler = GatewayScheduler.create();
        MonotonicClock clock = runtime.clock();
        this.window = new QueueDepthWindow(initial.config().load().window());
        OutlierEjector ejector = new OutlierEjector();
        PrefixMemory memory = new PrefixMemory(
                initial.config().prefixAffinity(), clock, runtime.random().nextLong());
        MeterRegistry registry = Services.get(MeterRegistry.class);
        this.metrics = new GatewayMetrics(
                registry,
                new ClusterState(
                        () -> snapshot.get().config().grid(),
                        new Admission(window, ejector),
                        memory,
                        clock,
                        id -> router().prices(id),
                        id -> router().missingSeries(id)));
        this.router = new SiteRouter(
                initial.config().grid(),
                initial.config().prefixAffinity(),
                initial.keyRing(),
                new RoutingParts(memory, window, ejector, runtime.random(), clock, metrics),
                initial.config().load().rules());
        RedisSharing.Backlog backlog = new RedisSharing.Backlog(router.backlog(), clock);
        this.sharing = RedisSharing.startIfEnabled(initial.config().sharing(), memory, backlog, metrics.sharing());
        this.tls = new GatewayTls(initial.config());
        this.scraper = scraper(clock);
        this.forwarder = forwarder(initial, clock);
        this.tracing = Tracing.start(initial.config().tracing(), runtime.random(), runtime.traceExportTimeout());
        this.shutdownGrace = initial.config().server().shutdownGrace();
        this.shutdownDelay = initial.config().server().shutdownDelay();
        this.relay = new ResponseRelay();
        HeaderDeadline headerDeadline = new HeaderDeadline(
                clock, initial.config().server().headerTimeout(), () -> metrics.refused(InboundRefusal.HEADER_TIMEOUT));
        readiness.configLoaded();
        metrics.requestsInFlight(inFlight::count);
        metrics.accessLogDropped(runtime.access().sink()::dropped);
        metrics.spansDropped(tracing::droppedSpans);
        this.budget = new BodyBudget(() -> snapshot.get()
                .config()
                .server()
                .inflightBodyBudget(java.lang.Runtime.getRuntime().maxMemory()));
        metrics.inflightBodyBytes(budget::bodies);
        metrics.inflightAnswerBytes(budget::answers);
        ServerSettings settings = initial.config().server();
        this.admin =
                Listeners.admin(settings, runtime.admin(settings, tls), headerDeadline, adminParts(registry, runtime));
        SendWatch sends = Listeners.sendWatch(scheduler, snapshot::get, metrics);
        this.server = Listeners.client(
                settings, runtime.client(settings, tls), headerDeadline, inFlight, routingParts(runtime, sends));
        if (!admin.isRunning() || admin.port() <= 0 || !server.isRunning() || server.port() <= 0) {
            close();
            throw new IllegalStateException("could not bind the client or admin port (see the log above)");
        }
        guardListeners(settings, runtime, sends);
        readiness.clientListenerBound();
        scraper.start();
        GatewayScheduler.sweeps(scheduler, headerDeadline, memory::expire, forwarder::closeIdle);
    }

    /** Keeps both listeners accepting through descriptor exhaustion; liveness watches the client listener's socket. */
    private void guardListeners(ServerSettings settings, GatewayRuntime runtime, SendWatch sends) {
        // The cap Listeners.client gave the listener (it logs it).
        metrics.edge().clientConnectionsLimit(settings.binding().connectionCap(OpenFiles.limit()));
        ListenerGuard client = Listeners.guard(server, runtime.client(settings, tls), "client", metrics.edge(), sends);
        Listeners.guard(admin, runtime.admin(settings, tls), "admin", metrics.edge(), sends);
        readiness.watchClientListener(client::listening);
    }

    /** The admin listener's parts: /route/explain reads the router, endpoints and config the client listener does. */
    private Listeners.AdminParts adminParts(MeterRegistry registry, GatewayRuntime runtime) {
        ExplainHandler explain = new ExplainHandler(
                new RouteExplainer(router, runtime.endpoints(), snapshot::get),
                () -> snapshot.get().config().server(),
                budget,
                scheduler,
                metrics.edge());
        return new Listeners.AdminParts(registry, readiness, explain, snapshot::get, budget, runtime.clock());
    }

    /** What the client listener's routing is built from: the parts built above, and the runtime's access log. */
    private GatewayRouting.Parts routingParts(GatewayRuntime runtime, SendWatch sends) {
        return new GatewayRouting.Parts(
                router,
                forwarder,
                relay,
                snapshot::get,
                metrics,
                budget,
                runtime.endpoints(),
                new GatewayRouting.Observing(runtime.access(), runtime.clock(), tracing),
                scheduler,
                sends);
    }

    /** Starts a gateway serving {@code snapshot}; nothing watches a file. */
    public static GatewayServer start(GatewaySnapshot snapshot, GatewayRuntime runtime) {
        return new GatewayServer(snapshot, runtime);
    }

    /**
     * Starts a gateway serving the config in {@code configFile}, re-read every {@code config_poll_ms}: a valid
     * change is applied live, an invalid one is logged and refused.
     *
     * @throws grid.gateway.app.config.ConfigException if the file is not a valid config now
     */
    public static GatewayServer start(Path configFile, GatewayRuntime runtime) {
        AtomicReference<GatewayServer> self = new AtomicReference<>();
        ReloadListener listener = ReloadListener.of(
                () -> self.get().metrics.reloadApplied(),
                () -> self.get().metrics.reloadRefused());
        ConfigWatcher watcher = new ConfigWatcher(configFile, s -> self.get().apply(s), listener);
        GatewayServer server = new GatewayServer(watcher.current(), runtime);
        self.set(server);
        server.watcher = watcher;
        watcher.start();
        return server;
    }

    /**
     * Applies a new snapshot, all or nothing: when a step fails (even with an Error), the steps before it are switched
     * back and the failure thrown, so the config in force keeps serving whole (TLS, grid, window, cluster meters); the
     * router, which forgets what it learnt of clusters left out, is last; then the pool lets go of the upstream
     * connections the config in force does not open ({@link UpstreamForwarder#retainOnly}). Keys read at start stay.
     */
    public void apply(GatewaySnapshot next) {
        GatewaySnapshot before = snapshot.get();
        Runnable tlsBack = tls.apply(next.config(), server, admin);
        try {
            switchTo(next);
        } catch (RuntimeException | Error e) {
            Undo.after(e, () -> switchTo(before), tlsBack);
            throw e;
        }
        forwarder.retainOnly(next.config().grid().clusters());
    }

    private void switchTo(GatewaySnapshot next) {
        GatewayConfig config = next.config();
        window.reconfigure(config.load().window());
        snapshot.set(next);
        metrics.syncClusters();
        router.reconfigure(
                config.grid(),
                config.prefixAffinity(),
                next.keyRing(),
                config.load().rules());
    }

    /** The upstream forwarder: leftovers it finds and its idle connections' memory go to the metrics. */
    private UpstreamForwarder forwarder(GatewaySnapshot initial, MonotonicClock clock) {
        UpstreamForwarder made = new UpstreamForwarder(
                initial.config().upstream(), clock, tls::forCluster, scheduler, metrics::upstreamLeftover);
        metrics.upstreamIdleConnectionBytes(made::idleConnectionBytes);
        return made;
    }

    /** The queue scraper: https metrics URLs are scraped with their cluster's TLS; pod censuses go to the metrics. */
    private QueueScraper scraper(MonotonicClock clock) {
        Supplier<GatewayConfig> config = () -> snapshot.get().config();
        return new QueueScraper(() -> config.get().grid(), () -> config.get().load(), router, clock, scheduler)
                .tls(tls::forCluster)
                .events(metrics);
    }

    /** The router, for the gauges (prices, missing series): read once the admin listener serves, after it is built. */
    private SiteRouter router() {
        return router;
    }

    /** The bound client port. */
    public int port() {
        return server.port();
    }

    /** The bound admin port. */
    public int adminPort() {
        return admin.port();
    }

    /** Re-reads the config file now, as the next poll would (for tests); nothing when started from a snapshot. */
    public void reloadNow() {
        ConfigWatcher w = watcher;
        if (w != null) {
            w.pollNow();
        }
    }

    /** Runs one scrape round now, after the scheduled first round has finished (for tests). */
    public void scrapeNow() {
        scraper.firstRound().join();
        scraper.pollNow().values().forEach(CompletableFuture::join);
    }

    /** Client requests being handled now. */
    public int requestsInFlight() {
        return inFlight.count();
    }

    /**
     * Stops gracefully after {@code server.shutdown_delay_ms} and within {@code server.shutdown_grace_ms}, both as read
     * at start (what {@code Main} does on SIGTERM).
     *
     * @see #shutdown(Duration, Duration)
     */
    public ShutdownReport shutdown() {
        return shutdown(shutdownDelay, shutdownGrace);
    }

    /** Stops without a delay, letting requests in flight finish for at most {@code grace}. */
    public ShutdownReport shutdown(Duration grace) {
        return shutdown(Duration.ZERO, grace);
    }

    /**
     * Stops the gateway after {@code delay}, letting requests in flight finish for at most {@code grace}:
     *
     * <pre>
     *   1. /health/ready answers 503 "shutting down"
     *   2. for {@code delay}: the client listener still accepts and serves as while ready (load balancers and Services
     *      are still sending here until they see step 1), each answer says Connection: close
     *   3. config polls and queue scrapes stop; the client listener closes: new connections are refused;
     *      idle kept-alive connections are closed
     *   4. each request in flight finishes and closes its connection, until none is left or {@code grace} passes
     *   5. then what is left is cut: its client answer ends abnormally, its upstream connection is closed (a listener
     *      stop still running {@link ListenerStop#AFTER_CUT} later is logged and left behind)
     *   6. pooled upstream connections are closed, then the admin listener stops
     * </pre>
     *
     * A second call returns the first one's report. Blocks until stopped.
     */
    public ShutdownReport shutdown(Duration delay, Duration grace) {
        requireNonNull(delay, "delay");
        requireNonNull(grace, "grace");
        stopping.lock();
        try {
            if (stopped == null) {
                stopped = stop(delay, grace);
            }
            return stopped;
        } finally {
            stopping.unlock();
        }
    }

    /** Ends a shutdown delay now, as if it had passed (for tests); nothing when none is running. */
    public void endShutdownDelay() {
        delayEnded.countDown();
    }

    private ShutdownReport stop(Duration delay, Duration grace) {
        readiness.shuttingDown();
        if (delay.isPositive()) {
            inFlight.closeConnections();
            try {
                delayEnded.await(delay.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        inFlight.drain();
        ConfigWatcher w = watcher;
        if (w != null) {
            w.close();
        }
        scraper.close();
        int atStart = inFlight.count();
        int cut = server == null
                ? 0
                : ListenerStop.stop("client", server::stop, grace, this::cutInFlight, ListenerStop.AFTER_CUT)
                        .cut();
        forwarder.close();
        // The spans of the requests just finished are exported (bounded wait) before the process goes.
        tracing.close();
        sharing.ifPresent(RedisSharing::close);
        if (admin != null) {
            // Nothing is left to cut there (its pages answer at once); its stop is waited for as the client's is.
            ListenerStop.stop("admin", admin::stop, ListenerStop.AFTER_CUT, () -> 0, Duration.ZERO);
        }
        metrics.close();
        scheduler.shutdownNow();
        return new ShutdownReport(atStart, inFlight.finishedWhileDraining(), cut);
    }

    /** Cuts what is in flight at the grace deadline; returns how many requests were cut. */
    private int cutInFlight() {
        int count = inFlight.count();
        inFlight.cut(relay::cutAll);
        return count;
    }

    /** Stops at once: what is in flight gets {@value #CLOSE_GRACE_MILLIS} ms (tests, a start that failed). */
    @Override
    public void close() {
        shutdown(Duration.ofMillis(CLOSE_GRACE_MILLIS));
    }

    /**
     * What a shutdown did.
     *
     * @param inFlightAtStart requests in flight when it began
     * @param finished requests that completed while it drained (including ones that arrived on open connections)
     * @param cut requests cut at the grace deadline
     */
    public record ShutdownReport(int inFlightAtStart, long finished, int cut) {}
}
