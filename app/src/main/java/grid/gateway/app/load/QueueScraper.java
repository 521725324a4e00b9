package grid.gateway.app.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.EngineSeriesParser;
import grid.gateway.routing.load.PodSum;
import grid.gateway.routing.time.MonotonicClock;
import io.helidon.common.tls.Tls;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
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
 * Feeds the router's load signal (docs/design.md §6): every {@code load.poll_interval_ms} it GETs each backend
 * cluster's pods ({@code metrics_url}, default {@code <url>/metrics}; each of {@code metrics_urls}; or every address
 * of {@code metrics_dns}, {@link PodTargets}), reads an {@link EngineSample} from each pod with
 * {@link EngineSeriesParser} ({@code load.queue_metric} summed as the queue depth, plus the vLLM series that
 * {@code auto} calibration uses), sums the round's pods with {@link PodSum} and hands the cluster's sample to
 * {@link SiteRouter#scraped}: the one entry point that records the depth into the windowed worst queue depth, takes
 * the requests sent before the round began off the cluster's in-flight count and feeds its calibration. One round of
 * a cluster is one sample, taken when its last pod's scrape ended; the in-flight count is cut where the round began
 * ({@link SiteRouter#scrapeMark}), so what was sent while a slow round was running stays counted.
 *
 * <pre>
 * scheduler (injected)           virtual threads, one round per cluster at a time, its pods in parallel
 *   every poll interval:           GET each pod (connect 1 s, read 2 s, body within 5 s, no redirects, at most
 *                                  8 MiB, 64 MiB of pages across all scrapes, a connection of its own)
 *     pollNow() -----------------&gt;   every pod: 2xx + a count of queue_metric -&gt; router.scraped(Σ)   SAMPLED
 *       never waits for a scrape     some pods, the others failed or without -&gt; router.scraped(Σ)   PARTLY_SAMPLED
 *                                    2xx, none with the queue metric         -&gt; router.scraped(Σ)   NO_QUEUE_METRIC
 *                                    no pod answered 2xx (or no pod)         -&gt; nothing             FAILED
 * </pre>
 *
 * <ul>
 *   <li>A pod that fails is left out of the sum when it is down (its GET could not connect), and counts with its
 *       latest depth when it is silent (reached, but no page; or not tried): its load is unknown, not gone
 *       ({@link PodSum}). {@link LoadEvents#podsScraped} tells the metrics the cluster is partly measured. When
 *       every pod fails nothing is recorded: the cluster keeps its older samples and becomes unmeasured once its
 *       window empties, as a one-pod cluster always did.
 *   <li>A 2xx answer without a sample of the queue metric that is a count records no depth either (the router leaves the
 *       window and the sent-since-scrape count alone when the sample has no depth), but its other engine series
 *       still feed calibration: they are as true as ever, and only the queue metric's name may be wrong. An answer
 *       with none of the series (an HTML error page, a placeholder) teaches calibration nothing: when no pod's page
 *       carried any, the round hands the router nothing, so no series is said missing for it.
 *   <li>Clusters are scraped concurrently, and a round never waits for a scrape: a slow cluster delays only its own
 *       samples. While a cluster's scrape is still running, later rounds start no other for it (so its samples stay
 *       in time order and slow clusters do not pile up requests).
 *   <li>A round that stalls (an engine's {@code /metrics} answers nothing for seconds under a burst) holds back only
 *       its own cluster's samples: no other round starts for that cluster, each pod's GET ends after
 *       {@link #READ_TIMEOUT} of silence, and within {@link PodFetch#WHOLE_SECONDS} s in all however it trickles (and
 *       the round then records nothing). Meanwhile the cluster keeps its last
 *       depth only while the window holds it, and with {@code count_sent_since_scrape} the requests this replica
 *       sent it since its last recorded round began stay counted on top, however late an answer comes: neither
 *       frozen as fresh nor wiped by a late answer. Once its window is empty the cluster is unmeasured, which orders
 *       it after every measured cluster (docs/design.md §6), never before them.
 *   <li>Each round reads the grid and the load settings afresh, so a reload takes effect at the next round; a scrape
 *       that ends after its cluster left records nothing. What the router holds of clusters that left (window,
 *       calibration, counts) goes when the composition root calls {@link SiteRouter#reconfigure} on reload, and so
 *       does the window's length ({@code window_secs}).
 *   <li>A cluster whose scrapes start failing (or partly failing) is logged once at WARNING, and once at INFO when
 *       they work again.
 * </ul>
 *
 * <p>Thread-safe: rounds may run concurrently with {@link #pollNow()} from a test; the per-cluster maps are
 * concurrent, and start and close are serialised by a lock never held across I/O.
 */
public final class QueueScraper implements AutoCloseable {
    /** How long a connection to a metrics endpoint may take. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(PodFetch.CONNECT_SECONDS);
    /** The longest silence while reading a metrics answer. */
    public static final Duration READ_TIMEOUT = Duration.ofSeconds(PodFetch.READ_SECONDS);
    /** The shortest wait between rounds, whatever {@code poll_interval_ms} says. */
    public static final Duration MIN_POLL_INTERVAL = Duration.ofMillis(1);
    /** The largest exposition read; a larger one is a failed scrape. */
    public static final int MAX_EXPOSITION_BYTES = PodFetch.MAX_EXPOSITION_BYTES;

    private static final System.Logger LOG = System.getLogger(QueueScraper.class.getName());

    /** How one cluster's scrape round ended. */
    public enum Outcome {
        /** Every pod gave a depth: their sum was recorded. */
        SAMPLED,
        /** Some pods gave a depth and others did not: their sum, with the silent pods' latest depths, was recorded. */
        PARTLY_SAMPLED,
        /** No pod answered 2xx (or the cluster has no pod), or one went over {@link #MAX_EXPOSITION_BYTES}. */
        FAILED,
        /** 2xx answers without a count of the queue metric: no depth recorded (other series still count). */
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
    private final PodFetch fetch;
    private final ConcurrentMap<ClusterId, CompletableFuture<Outcome>> running = new ConcurrentHashMap<>();
    private final ConcurrentMap<ClusterId, PodSum> sums = new ConcurrentHashMap<>();
    /** Done once the round {@link #start()} schedules has finished every scrape it began, or the scraper closed. */
    private final CompletableFuture<Void> firstRound = new CompletableFuture<>();

    private final ReentrantLock lifecycle = new ReentrantLock();
    private @Nullable ScheduledFuture<?> nextRound;
    private volatile boolean closed;
    private volatile LoadEvents events = LoadEvents.NONE;
    private volatile PodResolver resolver = PodResolver.SYSTEM;
    private final PodTargets targets;
    private final ScrapeOutcomeLog outcomes;

    /**
     * A scraper that is not yet scheduled; {@link #start()} schedules it.
     *
     * @param grid the grid in force, read at each round
     * @param load the load settings in force ({@code poll_interval_ms}, {@code queue_metric},
     *     {@code dns_refresh_secs}), read at each round
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
        this.fetch = new PodFetch(scheduler, new ScrapeMemory());
        this.outcomes = new ScrapeOutcomeLog(clock);
        this.targets = new PodTargets(
                host -> resolver.resolve(host),
                PodTargets.LOOKUP_DEADLINE,
                clock,
                () -> load.get().dnsRefresh(),
                new LoadEvents() {
                    @Override
                    public void dnsFailed(ClusterId cluster) {
                        events.dnsFailed(cluster);
                    }
                });
    }

    /**
     * Scrapes https metrics URLs with each cluster's TLS ({@code tls} or {@code gateway.upstream.tls}) instead of the
     * JDK's defaults; call before {@link #start()}.
     */
    public QueueScraper tls(Function<BackendCluster, Optional<Tls>> clusterTls) {
        fetch.tls(clusterTls);
        return this;
    }

    /** Tells {@code listener} each round's pod census, each failed resolution, and the pages' memory; before start. */
    public QueueScraper events(LoadEvents listener) {
        this.events = requireNonNull(listener, "listener");
        listener.scrapePageBytes(fetch::heldBytes);
        return this;
    }

    /** Resolves {@code metrics_dns} names with {@code resolver} (tests); call before {@link #start()}. */
    public QueueScraper resolver(PodResolver podResolver) {
        this.resolver = requireNonNull(podResolver, "podResolver");
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
        outcomes.retain(live);
        sums.keySet().retainAll(live);
        targets.retain(live);
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
            return CompletableFuture.supplyAsync(() -> scrapeOrFail(cluster, metric), scrapes);
        } catch (RejectedExecutionException closing) {
            return CompletableFuture.completedFuture(Outcome.FAILED);
        }
    }

    /** A round that throws (what it read broke an invariant) is a failed round, logged as one: never silent. */
    private Outcome scrapeOrFail(BackendCluster cluster, String metric) {
        try {
            return scrape(cluster, metric);
        } catch (RuntimeException broken) {
            return noted(cluster.id(), Outcome.FAILED, "failed: " + broken);
        }
    }

    /** One round of {@code cluster}: every pod in parallel, then one sample of their sum. */
    private Outcome scrape(BackendCluster cluster, String metric) {
        ClusterId id = cluster.id();
        // Where the round begins among the requests sent: those sent later stay in flight after it (it may stall).
        long began = router.scrapeMark();
        List<URI> pods = targets.pods(cluster);
        PodAnswers answers = fetchAll(cluster, pods, metric);
        if (grid.get().cluster(id).isEmpty()) {
            return Outcome.DISCARDED;
        }
        events.podsScraped(id, new PodCensus(pods.size(), answers.measured()));
        String why = String.join("; ", answers.failures());
        if (answers.samples().isEmpty()) {
            return noted(id, Outcome.FAILED, pods.isEmpty() ? "has no pod (its metrics_dns name never resolved)" : why);
        }
        // Pages with none of the series (placeholders, error pages) give the router nothing, not a scrape that lacks
        // all.
        if (answers.samples().values().stream().anyMatch(sample -> !sample.carriesNothing())) {
            Set<String> podKeys = new HashSet<>();
            pods.forEach(pod -> podKeys.add(pod.toString()));
            EngineSample sum = sums.computeIfAbsent(id, absent -> new PodSum())
                    .round(answers.samples(), answers.silent(), podKeys, clock.nanoTime());
            router.scraped(id, sum, began);
        }
        if (answers.measured() == 0) {
            return noted(id, Outcome.NO_QUEUE_METRIC, why);
        }
        return answers.measured() < pods.size()
                ? noted(id, Outcome.PARTLY_SAMPLED, why)
                : noted(id, Outcome.SAMPLED, "");
    }

    /**
     * GETs every pod, in parallel when there are several (a one-pod cluster's GET runs on the round's thread), each
     * page parsed on its GET's thread while its memory is counted ({@link ScrapeMemory}).
     */
    private PodAnswers fetchAll(BackendCluster cluster, List<URI> pods, String metric) {
        Function<String, EngineSample> read = text -> parser.parse(text, metric, clock.nanoTime());
        List<CompletableFuture<PodFetch.Fetched<EngineSample>>> fetches = new ArrayList<>(pods.size());
        for (URI pod : pods) {
            fetches.add(
                    pods.size() == 1
                            ? CompletableFuture.completedFuture(fetch.get(cluster, pod, read))
                            : fetchAsync(cluster, pod, read));
        }
        Map<String, EngineSample> samples = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        Set<String> silent = new HashSet<>();
        int measured = 0;
        for (int i = 0; i < pods.size(); i++) {
            URI pod = pods.get(i);
            switch (fetches.get(i).join()) {
                case PodFetch.Fetched.Answered<EngineSample>(EngineSample sample) -> {
                    samples.put(pod.toString(), sample);
                    if (sample.waiting().isPresent()) {
                        measured++;
                    } else {
                        failures.add(pod + " has no sample of " + metric + " that is a count");
                    }
                }
                case PodFetch.Fetched.Failed<EngineSample>(String why, boolean down) -> {
                    failures.add(pod + " " + why);
                    if (!down) {
                        silent.add(pod.toString());
                    }
                }
            }
        }
        return new PodAnswers(samples, measured, failures, silent);
    }

    private CompletableFuture<PodFetch.Fetched<EngineSample>> fetchAsync(
            BackendCluster cluster, URI pod, Function<String, EngineSample> read) {
        try {
            return CompletableFuture.supplyAsync(() -> fetch.get(cluster, pod, read), scrapes);
        } catch (RejectedExecutionException closing) {
            return CompletableFuture.completedFuture(new PodFetch.Fetched.Failed<>("not scraped: the scraper closed"));
        }
    }

    /** Logs when a cluster's scrapes start failing or work again ({@link ScrapeOutcomeLog}); not once closing. */
    private Outcome noted(ClusterId id, Outcome outcome, String why) {
        // A scrape interrupted by close: nothing an operator needs to read.
        return closed ? outcome : outcomes.noted(id, outcome, why);
    }
}
