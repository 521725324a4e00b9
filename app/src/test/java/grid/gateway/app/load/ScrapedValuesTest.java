package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.LoadRules;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Numbers on an engine's page that no count can be (below 0, beyond what a double counts exactly, summing past the
 * double range over pods or rounds), served on real loopback sockets: each is no reading of its series, the rest of
 * the page still counts, and the cluster's later scrapes are unharmed.
 */
class ScrapedValuesTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private Grid grid = Grid.of(EAST, List.of(cluster("p1")));
    private final SiteRouter router = new SiteRouter(
            grid,
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            QueueScraperTest.parts(clock, window),
            new LoadRules(true, LoadOrder.DEPTH));
    private final QueueScraper scraper = new QueueScraper(() -> grid, LoadSettings::defaults, router, clock, scheduler);

    @AfterEach
    void stop() {
        scraper.close();
        scheduler.shutdownNow();
        engines.close();
    }

    private BackendCluster cluster(String... pods) {
        List<URI> urls = java.util.Arrays.stream(pods)
                .map(pod -> URI.create(engines.base(pod) + "/metrics"))
                .toList();
        return new BackendCluster(
                A,
                URI.create("http://127.0.0.1:9"),
                Set.of("demo-model"),
                new MetricsSource.Urls(urls),
                OptionalInt.empty(),
                false);
    }

    private void inForce(BackendCluster cluster) {
        grid = Grid.of(EAST, List.of(cluster));
        router.reconfigure(
                grid, PrefixAffinitySettings.defaults(), TagKeyRing.none(), new LoadRules(true, LoadOrder.DEPTH));
    }

    /** One round, its window read after it; the window is emptied first by moving past it. */
    private Outcome round() {
        clock.advance(Duration.ofSeconds(11));
        return scraper.pollNow().get(A).join();
    }

    @Test
    void aNegativeQueueDepth_isNoDepth_theClusterIsNotTakenForEmptierThanEmpty() {
        engines.answer("p1", "vllm:num_requests_waiting{engine=\"0\"} -50\nvllm:num_requests_running 3\n");

        assertThat(round()).isEqualTo(Outcome.NO_QUEUE_METRIC);

        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
    }

    @Test
    void aNegativeEngineAmongOthers_isLeftOut_theOthersStillCount() {
        engines.answer(
                "p1", "vllm:num_requests_waiting{engine=\"0\"} -50\nvllm:num_requests_waiting{engine=\"1\"} 4\n");

        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(4));
    }

    @Test
    void depthsSummingPastTheDoubleRangeOverPods_failNothing() {
        engines.answer("p1", "vllm:num_requests_waiting 1e308\n");
        engines.answer("p2", "vllm:num_requests_waiting 1.5e308\nvllm:num_requests_running 2\n");
        engines.answer("p3", "vllm:num_requests_waiting 3\n");
        inForce(cluster("p1", "p2", "p3"));

        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(3));
    }

    @Test
    void aCounterJumpingPastTheDoubleRange_leavesLaterScrapesWhole() {
        engines.answer("p1", "vllm:num_requests_waiting 1\nvllm:prompt_tokens_total -1.7e308\n");
        assertThat(round()).isEqualTo(Outcome.SAMPLED);
        engines.answer("p1", "vllm:num_requests_waiting 2\nvllm:prompt_tokens_total 1.7e308\n");
        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        engines.answer("p1", "vllm:num_requests_waiting 3\nvllm:prompt_tokens_total 100\n");
        assertThat(round()).isEqualTo(Outcome.SAMPLED);
        engines.answer("p1", "vllm:num_requests_waiting 4\nvllm:prompt_tokens_total 200\n");
        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(4));
    }

    @Test
    void aSeriesRepeatedOnThePage_countsOnce_itsFirstSample() {
        engines.answer(
                "p1",
                "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 4\n"
                        + "vllm:num_requests_waiting{engine=\"1\",model_name=\"m\"} 1\n"
                        + "vllm:num_requests_waiting{model_name=\"m\",engine=\"0\"} 9\n");

        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        assertThat(window.worst(A, clock.nanoTime())).isEqualTo(OptionalDouble.of(5));
    }

    @Test
    void aRoundThatThrows_isAFailedRound_loggedOnce() {
        engines.answer("p1", "vllm:num_requests_waiting 1\n");
        CapturedLog log = CapturedLog.of(QueueScraper.class);
        QueueScraper throwing = new QueueScraper(() -> grid, LoadSettings::defaults, router, clock, scheduler)
                .events(new LoadEvents() {
                    @Override
                    public void podsScraped(ClusterId cluster, PodCensus census) {
                        throw new IllegalStateException("the census broke");
                    }
                });
        try {
            assertThat(throwing.pollNow().get(A).join()).isEqualTo(Outcome.FAILED);
            assertThat(throwing.pollNow().get(A).join()).isEqualTo(Outcome.FAILED);

            assertThat(log.messages())
                    .as("one line however many rounds fail")
                    .singleElement()
                    .satisfies(line -> assertThat(line).contains("IllegalStateException: the census broke"));
        } finally {
            throwing.close();
            log.close();
        }
    }
}
