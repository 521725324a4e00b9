package grid.gateway.app.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.load.PrometheusQueueParser;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.load.QueueSample;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.http.HeaderValues;
import io.helidon.http.Status;
import io.helidon.webclient.api.WebClient;
import io.helidon.webclient.http1.Http1Client;
import io.helidon.webclient.http1.Http1ClientResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;
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
import java.util.function.Supplier;

/**
 * Feeds the {@link QueueDepthWindow} (SPEC §6): every {@code load.poll_interval_ms} it GETs each backend cluster's
 * {@code metrics_url} (default {@code <url>/metrics}), sums {@code load.queue_metric} with
 * {@link PrometheusQueueParser} and records a {@link QueueSample} at the clock's reading when the answer was read.
 *
 * <pre>
 * scheduler (injected)            virtual threads, one scrape per cluster at a time
 *   every poll interval:            GET metrics_url (connect 1 s, read 2 s, no redirects, at most 8 MiB)
 *     pollNow() ------------------&gt;   2xx + a finite sample of queue_metric -&gt; window.record(cluster, sample)
 *       never waits for a scrape      anything else                         -&gt; nothing recorded
 * </pre>
 *
 * <ul>
 *   <li>A failed scrape (connect error, timeout, non-2xx status, redirect, oversized body) or one whose text has no
 *       finite sample of the metric records nothing: the cluster keeps its older samples and becomes unmeasured
 *       once its window empties.
 *   <li>Clusters are scraped concurrently, and a round never waits for a scrape: a slow cluster delays only its own
 *       samples. While a cluster's scrape is still running, later rounds start no other for it (so its samples stay
 *       in time order and slow clusters do not pile up requests).
 *   <li>Each round reads the grid and the load settings afresh, so a reload takes effect at the next round; it also
 *       drops the window's samples of clusters that left the grid, and a scrape that ends after its cluster left
 *       records nothing. The window's length ({@code window_secs}) is not the scraper's: the composition root calls
 *       {@link QueueDepthWindow#reconfigure} on reload.
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
        /** A 2xx answer without a finite sample of the queue metric: nothing recorded. */
        NO_QUEUE_METRIC,
        /** The cluster left the grid while it was scraped: nothing recorded. */
        DISCARDED
    }

    private final Supplier<Grid> grid;
    private final Supplier<LoadSettings> load;
    private final QueueDepthWindow window;
    private final MonotonicClock clock;
    private final ScheduledExecutorService scheduler;
    private final PrometheusQueueParser parser = new PrometheusQueueParser();
    private final ExecutorService scrapes = Executors.newVirtualThreadPerTaskExecutor();
    private final Http1Client client = WebClient.builder()
            .connectTimeout(CONNECT_TIMEOUT)
            .readTimeout(READ_TIMEOUT)
            .followRedirects(false)
            .shareConnectionCache(false)
            .build()
            .client(Http1Client.PROTOCOL);
    private final ConcurrentMap<ClusterId, CompletableFuture<Outcome>> running = new ConcurrentHashMap<>();
    private final ConcurrentMap<ClusterId, Outcome> lastOutcome = new ConcurrentHashMap<>();
    private final ReentrantLock lifecycle = new ReentrantLock();
    private ScheduledFuture<?> nextRound;
    private volatile boolean closed;

    /**
     * A scraper that is not yet scheduled; {@link #start()} schedules it.
     *
     * @param grid the grid in force, read at each round
     * @param load the load settings in force ({@code poll_interval_ms}, {@code queue_metric}), read at each round
     * @param window where samples go
     * @param clock the monotonic clock the window runs on
     * @param scheduler runs the rounds; owned by the caller, never shut down here
     */
    public QueueScraper(
            Supplier<Grid> grid,
            Supplier<LoadSettings> load,
            QueueDepthWindow window,
            MonotonicClock clock,
            ScheduledExecutorService scheduler) {
        this.grid = requireNonNull(grid, "grid");
        this.load = requireNonNull(load, "load");
        this.window = requireNonNull(window, "window");
        this.clock = requireNonNull(clock, "clock");
        this.scheduler = requireNonNull(scheduler, "scheduler");
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
        window.retain(live);
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
            pollNow();
        } catch (RuntimeException bug) {
            LOG.log(System.Logger.Level.ERROR, "queue scrape round failed; the next round runs as scheduled", bug);
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
        try (Http1ClientResponse answer = client.get()
                .uri(metricsUri(cluster))
                .followRedirects(false)
                .readTimeout(READ_TIMEOUT)
                .header(HeaderValues.ACCEPT_TEXT)
                .request()) {
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
        OptionalDouble depth = parser.sum(text, metric);
        if (depth.isEmpty()) {
            return noted(id, Outcome.NO_QUEUE_METRIC, "has no finite sample of " + metric);
        }
        if (grid.get().cluster(id).isEmpty()) {
            return Outcome.DISCARDED;
        }
        window.record(id, new QueueSample(clock.nanoTime(), depth.getAsDouble()));
        return noted(id, Outcome.SAMPLED, "");
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
