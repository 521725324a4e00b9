package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.RefusingPort;
import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.LoadRules;
import grid.gateway.routing.RoutingListener;
import grid.gateway.routing.RoutingParts;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class QueueScraperTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");
    private static final ClusterId B = new ClusterId(EAST, "b");

    /** What vLLM exposes with two engines (data parallel) behind one endpoint, trimmed to the relevant families. */
    private static final String VLLM_TWO_ENGINES = """
            # HELP vllm:num_requests_running Number of requests in model execution batches.
            # TYPE vllm:num_requests_running gauge
            vllm:num_requests_running{engine="0",model_name="demo-model"} 8.0
            vllm:num_requests_running{engine="1",model_name="demo-model"} 6.0
            # HELP vllm:num_requests_waiting Number of requests waiting to be processed.
            # TYPE vllm:num_requests_waiting gauge
            vllm:num_requests_waiting{engine="0",model_name="demo-model"} 3.0
            vllm:num_requests_waiting{engine="1",model_name="demo-model"} 4.0
            # HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
            # TYPE vllm:kv_cache_usage_perc gauge
            vllm:kv_cache_usage_perc{engine="0",model_name="demo-model"} 0.42
            vllm:kv_cache_usage_perc{engine="1",model_name="demo-model"} 0.37
            """;

    /** vLLM's cache configuration gauge, its numbers carried as labels. */
    private static final String CACHE_CONFIG = """
            # HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
            # TYPE vllm:cache_config_info gauge
            vllm:cache_config_info{block_size="16",cache_dtype="auto",engine="0",num_cpu_blocks="16384",\
            num_gpu_blocks="32768"} 1.0
            """;

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final AtomicReference<Grid> grid = new AtomicReference<>();
    private final AtomicReference<LoadSettings> load = new AtomicReference<>(LoadSettings.defaults());
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    /** The router the scraper feeds, around {@link #window}; {@link #inForce(Grid)} reconfigures it as a reload would. */
    private final SiteRouter router = new SiteRouter(
            grid(cluster(new ClusterId(EAST, "unused"), URI.create("http://127.0.0.1:9"), Optional.empty())),
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            parts(clock, window));

    private final QueueScraper scraper = new QueueScraper(grid::get, load::get, router, clock, scheduler);

    /** The routing parts of a router that the scraper feeds through {@code window}, seeded, listening to nothing. */
    static RoutingParts parts(ManualClock clock, QueueDepthWindow window) {
        return new RoutingParts(
                new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1),
                window,
                new OutlierEjector(),
                new SplittableRandom(1),
                clock,
                RoutingListener.NONE);
    }

    @AfterEach
    void stop() {
        scraper.close();
        scheduler.shutdownNow();
        engines.close();
    }

    @Test
    void pollNow_vllmMetricsOfTwoEngines_recordsTheirSum() {
        engines.answer("a", VLLM_TWO_ENGINES);
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(7.0));
    }

    @Test
    void pollNow_cacheConfigInfoUnderCapacityAuto_routerSizesTheClusterFromIt() {
        engines.answer("a", VLLM_TWO_ENGINES + CACHE_CONFIG);
        inForce(
                grid(cluster(A, engines.base("a"), Optional.empty())),
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, false));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);

        // (32768 GPU + 16384 CPU blocks) × 16 tokens ÷ 64 tokens an entry.
        assertThat(router.prices(A).capacity()).isEqualTo(OptionalInt.of(12_288));
        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(7.0));
    }

    @Test
    void pollNow_noQueueMetricButEngineSeries_noDepthRecordedYetCalibrationFed() {
        engines.answer("a", CACHE_CONFIG);
        inForce(
                grid(cluster(A, engines.base("a"), Optional.empty())),
                PrefixAffinitySettings.defaults().with(PrefixAffinitySettings.Calibrated.ALL, false));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.NO_QUEUE_METRIC);

        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
        assertThat(router.prices(A).capacity()).isEqualTo(OptionalInt.of(12_288));
    }

    @Test
    void pollNow_explicitMetricsUrl_scrapesThatUrl() {
        engines.answer("custom", "vllm:num_requests_waiting 12\n");
        URI metricsUrl = URI.create(engines.base("custom") + "/metrics");
        inForce(grid(cluster(A, engines.base("a"), Optional.of(metricsUrl))));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(12.0));
        assertThat(engines.requests("a")).isZero();
    }

    @Test
    void pollNow_engineAnswers500_recordsNothing() {
        engines.handle(
                "a", (req, res) -> res.status(Status.INTERNAL_SERVER_ERROR_500).send(VLLM_TWO_ENGINES));
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.FAILED);

        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_garbageBody_recordsNothing() {
        engines.answer("a", "<html><body>Bad gateway</body></html>\n\u0000\u0001 vllm:num_requests_waiting{\n");
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));

        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.NO_QUEUE_METRIC);

        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_redirect_notFollowed() {
        engines.answer("a", VLLM_TWO_ENGINES);
        engines.handle(
                "moved",
                (req, res) -> res.status(Status.FOUND_302)
                        .header(HeaderNames.LOCATION, engines.base("a") + "/metrics")
                        .send());
        inForce(grid(cluster(B, engines.base("moved"), Optional.empty())));

        assertThat(scraper.pollNow().get(B).join()).isEqualTo(Outcome.FAILED);

        assertThat(engines.requests("a")).isZero();
        assertThat(window.worst(B, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_connectionRefused_recordsNothing() {
        try (RefusingPort refusing = new RefusingPort()) {
            inForce(grid(cluster(A, URI.create(refusing.url()), Optional.empty())));

            assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.FAILED);
        }

        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_scrapesFailAfterASample_clusterUnmeasuredOnceTheWindowEmpties() {
        engines.answer("a", VLLM_TWO_ENGINES);
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));
        scraper.pollNow().get(A).join();
        engines.handle(
                "a", (req, res) -> res.status(Status.SERVICE_UNAVAILABLE_503).send());

        clock.advanceSeconds(5);
        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.FAILED);
        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(7.0));

        clock.advanceSeconds(6);
        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.FAILED);
        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_slowEngine_otherClusterStillSampledAndSlowOneNotAskedTwice() throws InterruptedException {
        CountDownLatch slowArrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        engines.answer("a", "vllm:num_requests_waiting 1\n");
        engines.handle("b", (req, res) -> {
            slowArrived.countDown();
            release.await();
            res.send("vllm:num_requests_waiting 9\n");
        });
        inForce(grid(cluster(A, engines.base("a"), Optional.empty()), cluster(B, engines.base("b"), Optional.empty())));
        Map<ClusterId, CompletableFuture<Outcome>> first = scraper.pollNow();
        try {
            assertThat(first.get(A).join()).isEqualTo(Outcome.SAMPLED);
            assertThat(slowArrived.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(first.get(B)).isNotDone();
            assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(1.0));
            assertThat(window.worst(B, clock.nanoTime())).isEmpty();

            engines.answer("a", "vllm:num_requests_waiting 2\n");
            Map<ClusterId, CompletableFuture<Outcome>> second = scraper.pollNow();
            assertThat(second.get(A).join()).isEqualTo(Outcome.SAMPLED);
            assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(2.0));
            // The slow scrape still runs: the round hands it back instead of asking the engine again.
            assertThat(second.get(B)).isSameAs(first.get(B));
            assertThat(engines.requests("b")).isEqualTo(1);
        } finally {
            release.countDown();
        }
        assertThat(first.get(B).join()).isEqualTo(Outcome.SAMPLED);
        assertThat(window.worst(B, clock.nanoTime())).isEqualTo(OptionalDouble.of(9.0));
    }

    @Test
    void pollNow_clusterRemovedFromGrid_notScrapedAndItsSamplesDropped() {
        engines.answer("a", "vllm:num_requests_waiting 1\n");
        engines.answer("b", "vllm:num_requests_waiting 2\n");
        inForce(grid(cluster(A, engines.base("a"), Optional.empty()), cluster(B, engines.base("b"), Optional.empty())));
        scraper.pollNow().values().forEach(CompletableFuture::join);

        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));
        Map<ClusterId, CompletableFuture<Outcome>> round = scraper.pollNow();
        round.values().forEach(CompletableFuture::join);

        assertThat(round).containsOnlyKeys(A);
        assertThat(engines.requests("b")).isEqualTo(1);
        assertThat(window.worst(B, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_clusterRemovedWhileItsScrapeRuns_recordsNothing() throws InterruptedException {
        CountDownLatch arrived = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        engines.handle("b", (req, res) -> {
            arrived.countDown();
            release.await();
            res.send("vllm:num_requests_waiting 9\n");
        });
        engines.answer("a", "vllm:num_requests_waiting 1\n");
        inForce(grid(cluster(A, engines.base("a"), Optional.empty()), cluster(B, engines.base("b"), Optional.empty())));
        CompletableFuture<Outcome> slow = scraper.pollNow().get(B);
        assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();

        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));
        release.countDown();

        assertThat(slow.join()).isEqualTo(Outcome.DISCARDED);
        assertThat(window.worst(B, clock.nanoTime())).isEmpty();
    }

    @Test
    void pollNow_queueMetricChangedByReload_sumsTheNewMetric() {
        engines.answer("a", VLLM_TWO_ENGINES);
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));
        load.set(new LoadSettings(Duration.ofSeconds(1), Duration.ofSeconds(10), "vllm:num_requests_running"));

        scraper.pollNow().get(A).join();

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(14.0));
    }

    @Test
    void start_pollIntervalElapses_scrapesEveryInterval() throws InterruptedException {
        CountDownLatch threeScrapes = new CountDownLatch(3);
        engines.handle("a", (req, res) -> {
            threeScrapes.countDown();
            res.send("vllm:num_requests_waiting 1\n");
        });
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));
        load.set(new LoadSettings(Duration.ofMillis(10), Duration.ofSeconds(10), "vllm:num_requests_waiting"));

        scraper.start();

        assertThat(threeScrapes.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void pollNow_failingThenWorkingAgain_logsOnceEachWay() {
        CapturedLog log = CapturedLog.of(QueueScraper.class);
        try {
            engines.handle(
                    "a",
                    (req, res) -> res.status(Status.SERVICE_UNAVAILABLE_503).send());
            inForce(grid(cluster(A, engines.base("a"), Optional.empty())));
            scraper.pollNow().get(A).join();
            scraper.pollNow().get(A).join();
            engines.answer("a", VLLM_TWO_ENGINES);
            scraper.pollNow().get(A).join();
            scraper.pollNow().get(A).join();
        } finally {
            log.close();
        }

        assertThat(log.records())
                .extracting(LogRecord::getLevel, LogRecord::getMessage)
                .containsExactly(
                        tuple(
                                Level.WARNING,
                                "queue scrape of cluster east/a: " + engines.base("a")
                                        + "/metrics answered 503; no depth recorded, the cluster becomes unmeasured"
                                        + " when its window empties"),
                        tuple(Level.INFO, "queue scrape of cluster east/a works again"));
    }

    @Test
    void pollNow_afterClose_scrapesNothing() {
        engines.answer("a", VLLM_TWO_ENGINES);
        inForce(grid(cluster(A, engines.base("a"), Optional.empty())));

        scraper.close();

        assertThat(scraper.pollNow()).isEmpty();
        assertThat(engines.requests("a")).isZero();
    }

    @Test
    void metricsUri_noMetricsUrl_urlPlusMetricsWithoutDoubleSlash() {
        assertThat(cluster(A, URI.create("http://10.0.0.1:8000"), Optional.empty())
                        .metrics())
                .isEqualTo(MetricsSource.of(URI.create("http://10.0.0.1:8000/metrics")));
        assertThat(cluster(A, URI.create("http://10.0.0.1:8000/"), Optional.empty())
                        .metrics())
                .isEqualTo(MetricsSource.of(URI.create("http://10.0.0.1:8000/metrics")));
        assertThat(cluster(A, URI.create("http://gw/engine/a"), Optional.empty())
                        .metrics())
                .isEqualTo(MetricsSource.of(URI.create("http://gw/engine/a/metrics")));
    }

    /** Puts {@code next} in force, as {@code GatewayServer.apply} does: the scraper reads it, the router drops the rest. */
    private void inForce(Grid next) {
        inForce(next, PrefixAffinitySettings.defaults());
    }

    private void inForce(Grid next, PrefixAffinitySettings settings) {
        grid.set(next);
        router.reconfigure(next, settings, TagKeyRing.none(), LoadRules.SEED);
    }

    private static Grid grid(BackendCluster... clusters) {
        return Grid.of(EAST, List.of(clusters));
    }

    private static BackendCluster cluster(ClusterId id, URI url, Optional<URI> metricsUrl) {
        return new BackendCluster(id, url, Set.of("demo-model"), metricsUrl, OptionalInt.empty(), false);
    }
}
