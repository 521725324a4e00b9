package grid.gateway.app;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.ConfigWatcher;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.config.ReloadListener;
import grid.gateway.app.forward.ResponseRelay;
import grid.gateway.app.forward.UpstreamForwarder;
import grid.gateway.app.http.GatewayRouting;
import grid.gateway.app.http.HeaderDeadline;
import grid.gateway.app.load.QueueScraper;
import grid.gateway.app.observe.AdminRoutes;
import grid.gateway.app.observe.ClusterState;
import grid.gateway.app.observe.GatewayMetrics;
import grid.gateway.app.observe.InboundRefusal;
import grid.gateway.app.observe.Readiness;
import grid.gateway.routing.RoutingParts;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.Randomness;
import grid.gateway.routing.time.SystemMonotonicClock;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import io.helidon.webserver.http1.Http1Config;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

/**
 * The composition root: builds every stateful part from a {@link GatewaySnapshot} and a {@link Runtime}, and starts
 * the client and admin listeners. Tests call the same {@link #start} with a manual clock and a seeded random source.
 *
 * <pre>
 *   config file ──ConfigWatcher──> apply(snapshot) ──> SiteRouter.reconfigure, window, metrics
 *   client socket ──> ProxyHandler ──> SiteRouter ──> UpstreamForwarder ──> ResponseRelay
 *   admin socket  ──> /metrics, /health/live, /health/ready
 *   scheduler     ──> QueueScraper rounds, prefix expiry, idle-timeout alarms, config polls
 * </pre>
 *
 * <p>Thread-safe: {@link #apply} swaps the snapshot atomically; listener ports never change after start.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Duration EXPIRY_SWEEP = Duration.ofSeconds(10);

    private final AtomicReference<GatewaySnapshot> snapshot;
    private final ScheduledExecutorService scheduler;
    private final QueueDepthWindow window;
    private final SiteRouter router;
    private final GatewayMetrics metrics;
    private final QueueScraper scraper;
    private final WebServer server;
    private ConfigWatcher watcher;

    /**
     * Injected time, randomness and bind address.
     *
     * @param clock the monotonic clock every window, TTL and ejection runs on
     * @param random exploration, tie-breaks and the prefix index salt
     * @param host the address both listeners bind
     */
    public record Runtime(MonotonicClock clock, RandomGenerator random, String host) {
        public Runtime {
            requireNonNull(clock, "clock");
            requireNonNull(random, "random");
            requireNonNull(host, "host");
        }

        /** Production: the system clock, thread-local randomness, every interface. */
        public static Runtime production() {
            return new Runtime(SystemMonotonicClock.INSTANCE, Randomness.INSTANCE, "0.0.0.0");
        }
    }

    private GatewayServer(GatewaySnapshot initial, Runtime runtime) {
        this.snapshot = new AtomicReference<>(initial);
        this.scheduler = newScheduler();
        MonotonicClock clock = runtime.clock();
        this.window = new QueueDepthWindow(initial.config().load().window());
        OutlierEjector ejector = new OutlierEjector();
        PrefixMemory memory = new PrefixMemory(
                initial.config().prefixAffinity(), clock, runtime.random().nextLong());
        MeterRegistry registry = Services.get(MeterRegistry.class);
        this.metrics = new GatewayMetrics(
                registry,
                new ClusterState(() -> snapshot.get().config().grid(), new Admission(window, ejector), memory, clock));
        this.router = new SiteRouter(
                initial.config().grid(),
                initial.config().prefixAffinity(),
                initial.keyRing(),
                new RoutingParts(memory, window, ejector, runtime.random(), clock, metrics));
        this.scraper = new QueueScraper(
                () -> snapshot.get().config().grid(),
                () -> snapshot.get().config().load(),
                window,
                clock,
                scheduler);
        UpstreamForwarder forwarder = new UpstreamForwarder(initial.config().upstream(), clock);
        // The idle timeout runs on the real scheduler, so it measures silences on the real clock too, not on the
        // runtime's clock (a manual one in tests, which the scheduler knows nothing of).
        ResponseRelay relay =
                new ResponseRelay(scheduler, initial.config().upstream().idleTimeout(), SystemMonotonicClock.INSTANCE);
        HeaderDeadline headerDeadline = new HeaderDeadline(
                clock, initial.config().server().headerTimeout(), () -> metrics.refused(InboundRefusal.HEADER_TIMEOUT));
        Readiness readiness = new Readiness();
        readiness.configLoaded();
        WebServerConfig.Builder builder = WebServer.builder()
                .host(runtime.host())
                .port(initial.config().server().port())
                .connectionOptions(o -> o.tcpNoDelay(true))
                .addProtocol(
                        Http1Config.builder().addReceiveListener(headerDeadline).build())
                .putSocket(
                        AdminRoutes.SOCKET,
                        s -> s.host(runtime.host())
                                .port(initial.config().server().adminPort()))
                .routing(r -> GatewayRouting.register(
                        r, new GatewayRouting.Parts(router, forwarder, relay, snapshot::get, metrics)));
        AdminRoutes.addTo(builder, registry, readiness);
        this.server = builder.build().start();
        if (!server.isRunning() || server.port() <= 0) {
            close();
            throw new IllegalStateException("could not bind the client or admin port (see the log above)");
        }
        readiness.clientListenerBound();
        scraper.start();
        long sweep = headerDeadline.sweepPeriod().toNanos();
        scheduler.scheduleWithFixedDelay(headerDeadline::sweep, sweep, sweep, TimeUnit.NANOSECONDS);
        scheduler.scheduleWithFixedDelay(
                memory::expire, EXPIRY_SWEEP.toMillis(), EXPIRY_SWEEP.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The shared scheduler. Cancelled tasks leave its queue at once: every answer's idle alarm is cancelled when the
     * answer ends, long before it is due, and by default a cancelled task stays queued, holding its answer, until its
     * delay (idle_timeout_ms, 300 s) ends. bench/steady-heap.sh measured that as about 290 bytes of heap a request,
     * held for the idle timeout: about 85 MB at 1,000 requests a second.
     */
    static ScheduledThreadPoolExecutor newScheduler() {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(
                2, Thread.ofPlatform().daemon().name("grid-scheduler-", 0).factory());
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    /** Starts a gateway serving {@code snapshot}; nothing watches a file. */
    public static GatewayServer start(GatewaySnapshot snapshot, Runtime runtime) {
        return new GatewayServer(snapshot, runtime);
    }

    /**
     * Starts a gateway serving the config in {@code configFile}, re-read every {@code config_poll_ms}: a valid
     * change is applied live, an invalid one is logged and refused.
     *
     * @throws grid.gateway.app.config.ConfigException if the file is not a valid config now
     */
    public static GatewayServer start(Path configFile, Runtime runtime) {
        AtomicReference<GatewayServer> self = new AtomicReference<>();
        ReloadListener listener = new ReloadListener() {
            @Override
            public void applied() {
                self.get().metrics.reloadApplied();
            }

            @Override
            public void refused(List<String> problems) {
                self.get().metrics.reloadRefused();
            }
        };
        ConfigWatcher watcher = new ConfigWatcher(configFile, s -> self.get().apply(s), listener);
        GatewayServer server = new GatewayServer(watcher.current(), runtime);
        self.set(server);
        server.watcher = watcher;
        watcher.start();
        return server;
    }

    /**
     * Applies a new snapshot. Listener ports, the header timeout and the upstream settings read at start stay as they
     * were.
     */
    public void apply(GatewaySnapshot next) {
        snapshot.set(next);
        router.reconfigure(next.config().grid(), next.config().prefixAffinity(), next.keyRing());
        window.reconfigure(next.config().load().window());
        metrics.syncClusters();
    }

    /** The bound client port. */
    public int port() {
        return server.port();
    }

    /** The bound admin port. */
    public int adminPort() {
        return server.port(AdminRoutes.SOCKET);
    }

    /** Re-reads the config file now, as the next poll would (for tests); nothing when started from a snapshot. */
    public void reloadNow() {
        if (watcher != null) {
            watcher.pollNow();
        }
    }

    /** Runs one scrape round now (for tests). */
    public void scrapeNow() {
        scraper.pollNow().values().forEach(CompletableFuture::join);
    }

    @Override
    public void close() {
        if (watcher != null) {
            watcher.close();
        }
        scraper.close();
        if (server != null) {
            server.stop();
        }
        metrics.close();
        scheduler.shutdownNow();
    }
}
