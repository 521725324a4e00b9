package grid.gateway.app.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.forward.HostKeepingResolver;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.EngineSeriesParser;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.common.tls.Tls;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webclient.api.WebClient;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webclient.http1.Http1ClientRequest;
import io.helidon.webclient.http1.Http1ClientResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Feeds the router's load signal (docs/design.md §6): every {@code load.poll_interval_ms} it GETs each backend cluster's
 * {@code metrics_url} (default {@code <url>/metrics}), reads an {@link EngineSample} with {@link EngineSeriesParser}
 * ({@code load.queue_metric} summed as the queue depth, plus the vLLM series that {@code auto} calibration uses) at
 * the clock's reading when the answer was read, and hands it to {@link SiteRouter#scraped}: the one entry point that
 * records the depth into the windowed worst queue depth, resets the cluster's sent-since-scrape count and feeds its
 * calibration.
 *
 * <pre>
 * scheduler (injected)           virtual threads, one scrape per cluster at a time
 *   every poll interval:           GET metrics_url (connect 1 s, read 2 s, no redirects, at most 8 MiB)
 *     pollNow() -----------------&gt;   2xx + a finite queue_metric -&gt; router.scraped(cluster, sample)  SAMPLED
 *       never waits for a scrape     2xx without it              -&gt; router.scraped(cluster, sample)  NO_QUEUE_METRIC
 *                                    anything else               -&gt; nothing                          FAILED
 * </pre>
 *
 * <ul>
 *   <li>A failed scrape (connect error, timeout, non-2xx status, redirect, oversized body) records nothing: the
 *       cluster keeps its older samples and becomes unmeasured once its window empties.
 *   <li>A 2xx answer without a finite sample of the queue metric records no depth either (the router leaves the
 *       window and the sent-since-scrape count alone when the sample has no depth), but its other engine series
 *       still feed calibration: they are as true as ever, and only the queue metric's name may be wrong. An answer
 *       with none of the series (an HTML error page) teaches calibration nothing.
 *   <li>Clusters are scraped concurrently, and a round never waits for a scrape: a slow cluster delays only its own
 *       samples. While a cluster's scrape is still running, later rounds start no other for it (so its samples stay
 *       in time order and slow clusters do not pile up requests).
 *   <li>Each round reads the grid and the load settings afresh, so a reload takes effect at the next round; a scrape
 *       that ends after its cluster left records nothing. What the router holds of clusters that left (window,
 *       calibration, counts) goes when the composition root calls {@link SiteRouter#reconfigure} on reload, and so
 *       does the window's length ({@code window_secs}).
 *   <li>A cluster whose scrapes start failing is logged once at WARNING, and once at INFO when they work again.
 * </ul>
 *
 * <p>Thread-safe: rounds may run concurrently with {@link #pollNow()} from a test; the per-cluster map of running
 * scrapes is concurrent, and start and close are serialised by a lock never held across I/O.
 */
public final class QueueScraper implements AutoCloseable {
    /** How long a connection to a metrics endpoint may take. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);
    /** The longest silence while reading a metrics answer. */
    public static final Duration READ_TIMEOUT = Duration.ofSeconds(2);
    /** The shortest wait between rounds, whatever {@code poll_interval_ms} says. */
    public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(1);
    /** The largest exposition read; a larger one is a failed scrape. */
    public static final int MAX_EXPOSITION_BYTES = 8 * 1024 * 1024;

    private static final System.Logger LOG = System.getLogger(QueueScraper.class.getName());

    /** How one scrape ended. */
    public enum Outcome {
        /** A sample was recorded. */
        SAMPLED,
        /** No answer, a non-2xx answer, or one over {@link #MAX_EXPOSITION_BYTES}: nothing recorded. */
        FAILED,
        /** A 2xx answer without a finite sample of the queue metric: no depth recorded (other series still count). */
        NO_QUEUE_METRIC,
        /** The cluster left the grid while it was scraped: nothing recorded. */
        DISCARDED
    }

    private final Supplier<Grid> grid;
    private final Supplier<LoadSettings> load;
    private final SiteRouter router;
    private final MonotonicClock clock;
    private final ScheduledExecutorService scheduler;
    private final EngineSeriesParser parser = new EngineSeriesParser();
    private final ExecutorService scrapes = Executors.newVirtualThreadPerTaskExecutor();
    private final Http1Client client = WebClient.builder()
            .connectTimeout(CONNECT_TIMEOUT)
            .readTimeout(READ_TIMEOUT)
            .followRedirects(false)
            .shareConnectionCache(false)
            .dnsResolver(HostKeepingResolver.INSTANCE)
            .build()
            .client(Http1Client.PROTOCOL);
    private final ConcurrentMap<ClusterId, CompletableFuture<Outcome>> running = new ConcurrentHashMap<>();
    /** Done once the round {@link #start()} schedules has finished every scrape it began, or the scraper closed. */
    private final CompletableFuture<Void> firstRound = new CompletableFuture<>();

    private final ConcurrentMap<ClusterId, Outcome> lastOutcome = new ConcurrentHashMap<>();
    private final ReentrantLock lifecycle = new ReentrantLock();
    private @Nullable ScheduledFuture<?> nextRound;
    private volatile boolean closed;
    private volatile Function<BackendCluster, Optional<Tls>> tls = cluster -> Optional.empty();

    /**
     * A scraper that is not yet scheduled; {@link #start()} schedules it.
     *
     * @param grid the grid in force, read at each round
     * @param load the load settings in force ({@code poll_interval_ms}, {@code queue_metric}), read at each round
     * @param router where samples go ({@link SiteRouter#scraped})
     * @param clock the monotonic clock the router runs on
     * @param scheduler runs the rounds; owned by the caller, never shut down here
     */
    public QueueScraper(
            Supplier<Grid> grid,
            Supplier<LoadSettings> load,
            SiteRouter router,
            MonotonicClock clock,
            ScheduledExecutorService scheduler) {
        this.grid = requireNonNull(grid, "grid");
        this.load = requireNonNull(load, "load");
        this.router = requireNonNull(router, "router");
        this.clock = requireNonNull(clock, "clock");
        this.scheduler = requireNonNull(scheduler, "scheduler");
    }

    /**
     * Scrapes https metrics URLs with each cluster's TLS ({@code tls} or {@code gateway.upstream.tls}) instead of the
     * JDK's defaults; call before {@link #start()}.
     */
    public QueueScraper tls(Function<BackendCluster, Optional<Tls>> clusterTls) {
        this.tls = requireNonNull(clusterTls, "clusterTls");
        return this;
    }

    /** Runs a first round at once, then one every poll interval (re-read before each wait); idempotent. */
    public void start() {
        lifecycle.lock();
        try {
            if (nextRound == null && !closed) {
                nextRound = scheduler.schedule(this::round, 0, TimeUnit.NANOSECONDS);
            }
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Starts a scrape of every cluster of the grid in force that has none running, and returns without waiting:
     * each cluster's scrape, the running one where there was one. Empty once closed.
     */
    public Map<ClusterId, CompletableFuture<Outcome>> pollNow() {
        Grid current = grid.get();
        String metric = load.get().queueMetric();
        Set<ClusterId> live = new HashSet<>();
        current.clusters().forEach(cluster -> live.add(cluster.id()));
        running.keySet().retainAll(live);
        lastOutcome.keySet().retainAll(live);
        Map<ClusterId, CompletableFuture<Outcome>> round = new LinkedHashMap<>();
        for (BackendCluster cluster : current.clusters()) {
            if (closed) {
                return Map.of();
            }
            round.put(
                    cluster.id(),
                    running.compute(
                            cluster.id(),
                            (id, scrape) -> scrape != null && !scrape.isDone() ? scrape : submit(cluster, metric)));
        }
        return round;
    }

    /**
     * Stops scheduling rounds, interrupts running scrapes and closes the pooled scrape connections; the scheduler
     * itself stays the caller's.
     */
    @Override
    public void close() {
        lifecycle.lock();
        try {
            closed = true;
            if (nextRound != null) {
                nextRound.cancel(false);
            }
        } finally {
            lifecycle.unlock();
        }
        scrapes.shutdownNow();
        client.closeResource();
        firstRound.complete(null);
    }

    /**
     * Completes when the first scheduled round has finished its scrapes. A test that drives its own rounds waits for it
     * first: the scheduled round runs on its own thread at a time of its own, and if it scraped after the test's
     * round it would see requests the test sent since (for example a running one, which calibrates slots).
     */
    public CompletableFuture<Void> firstRound() {
        return firstRound;
    }

    /** The metrics URL of {@code cluster}: its {@code metrics_url}, else {@code <url>/metrics}. */
    static URI metricsUri(BackendCluster cluster) {
        return cluster.metricsUrl().orElseGet(() -> {
            String base = cluster.url().toString();
            return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/metrics");
        });
    }

    private void round() {
        try {
            Map<ClusterId, CompletableFuture<Outcome>> scrapesOfRound = pollNow();
            if (!firstRound.isDone()) {
                CompletableFuture.allOf(scrapesOfRound.values().toArray(CompletableFuture[]::new))
                        .whenComplete((done, failure) -> firstRound.complete(null));
            }
        } catch (RuntimeException bug) {
            LOG.log(System.Logger.Level.ERROR, "queue scrape round failed; the next round runs as scheduled", bug);
            firstRound.complete(null);
        } finally {
            lifecycle.lock();
            try {
                if (!closed) {
                    nextRound = scheduler.schedule(this::round, delayNanos(), TimeUnit.NANOSECONDS);
                }
            } finally {
                lifecycle.unlock();
            }
        }
    }

    /** The poll interval in force, at least {@link #MIN_POLL_INTERVAL} so that a bad value cannot spin. */
    private long delayNanos() {
        Duration interval = load.get().pollInterval();
        return interval.compareTo(MIN_POLL_INTERVAL) < 0 ? MIN_POLL_INTERVAL.toNanos() : interval.toNanos();
    }

    private CompletableFuture<Outcome> submit(BackendCluster cluster, String metric) {
        try {
            return CompletableFuture.supplyAsync(() -> scrape(cluster, metric), scrapes);
        } catch (RejectedExecutionException closing) {
            return CompletableFuture.completedFuture(Outcome.FAILED);
        }
    }

    private Outcome scrape(BackendCluster cluster, String metric) {
        ClusterId id = cluster.id();
        String text;
        URI uri = metricsUri(cluster);
        Http1ClientRequest request = client.get()
                .uri(uri)
                .followRedirects(false)
                .readTimeout(READ_TIMEOUT)
                .header(HeaderValues.ACCEPT_TEXT);
        if ("https".equalsIgnoreCase(uri.getScheme())) {
            tls.apply(cluster).ifPresent(request::tls);
        }
        try (Http1ClientResponse answer = request.request()) {
            if (answer.status().family() != Status.Family.SUCCESSFUL) {
                return failed(id, "answered " + answer.status().code());
            }
            byte[] body = readBounded(answer.inputStream());
            if (body.length > MAX_EXPOSITION_BYTES) {
                return failed(id, "exposition over " + MAX_EXPOSITION_BYTES + " bytes");
            }
            text = new String(body, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException unreachable) {
            return failed(id, "failed: " + rootCause(unreachable));
        }
        EngineSample sample = parser.parse(text, metric, clock.nanoTime());
        boolean left = grid.get().cluster(id).isEmpty();
        if (!left) {
            router.scraped(id, sample);
        }
        if (sample.waiting().isEmpty()) {
            return noted(id, Outcome.NO_QUEUE_METRIC, "has no finite sample of " + metric);
        }
        return left ? Outcome.DISCARDED : noted(id, Outcome.SAMPLED, "");
    }

    private Outcome failed(ClusterId id, String why) {
        return noted(id, Outcome.FAILED, why);
    }

    /** Logs when a cluster's scrapes start failing or work again, never for a repeat. */
    private Outcome noted(ClusterId id, Outcome outcome, String why) {
        Outcome previous = lastOutcome.put(id, outcome);
        if (outcome == previous || closed) {
            // A repeat, or a scrape interrupted by close: nothing an operator needs to read.
            return outcome;
        }
        if (outcome == Outcome.SAMPLED) {
            if (previous != null) {
                LOG.log(System.Logger.Level.INFO, "queue scrape of cluster " + id + " works again");
            }
        } else {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "queue scrape of cluster " + id + " " + why
                            + "; no sample recorded, the cluster becomes unmeasured when its window empties");
        }
        return outcome;
    }

    /** The innermost cause's class and message: Helidon wraps socket errors in {@code UncheckedIOException}. */
    private static String rootCause(Throwable failure) {
        Throwable root = failure;
        for (int depth = 0; root.getCause() != null && depth < 16; depth++) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /** At most {@link #MAX_EXPOSITION_BYTES} + 1 bytes, so that an oversized body is recognised without holding it. */
    private static byte[] readBounded(InputStream in) throws IOException {
        return in.readNBytes(MAX_EXPOSITION_BYTES + 1);
    }
}
