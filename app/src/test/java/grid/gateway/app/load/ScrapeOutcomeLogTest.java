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
import io.helidon.http.Status;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scrape log of a cluster whose pod answers every other scrape, on real loopback sockets and a manual clock: at
 * most two lines a minute (a failure and its recovery), not two a poll interval, and its last line says the outcome
 * in force once the pod settles.
 */
class ScrapeOutcomeLogTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");
    private static final Duration POLL = Duration.ofSeconds(5);

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Grid grid = Grid.of(EAST, List.of(cluster("p1", "p2")));
    private final SiteRouter router = new SiteRouter(
            grid,
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            QueueScraperTest.parts(clock, new QueueDepthWindow(Duration.ofSeconds(10))),
            new LoadRules(true, LoadOrder.DEPTH));
    private final QueueScraper scraper = new QueueScraper(() -> grid, LoadSettings::defaults, router, clock, scheduler);
    private final CapturedLog log = CapturedLog.of(QueueScraper.class);

    @AfterEach
    void stop() {
        log.close();
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

    private Outcome round() {
        clock.advance(POLL);
        return scraper.pollNow().get(A).join();
    }

    @Test
    void aPodAnsweringEveryOtherScrape_atMostTwoLinesAMinute_theLastSaysTheOutcomeInForce() {
        engines.answer("p1", "vllm:num_requests_waiting 1\n");
        AtomicBoolean fails = new AtomicBoolean(true);
        engines.handle("p2", (req, res) -> {
            if (fails.getAndSet(!fails.get())) {
                res.status(Status.SERVICE_UNAVAILABLE_503).send();
            } else {
                res.send("vllm:num_requests_waiting 2\n");
            }
        });

        // Ten minutes of rounds, one every 5 s: 120 rounds, 119 changes between partly failing and working.
        for (int i = 0; i < 120; i++) {
            round();
        }

        assertThat(log.messages()).hasSizeBetween(2, 2 * 10 + 2);
        assertThat(log.messages().getFirst()).contains("partly failed").contains("p2/metrics answered 503");
        assertThat(log.messages().get(1)).contains("works again");

        engines.answer("p2", "vllm:num_requests_waiting 2\n");
        for (int i = 0; i < 13; i++) { // a minute and a round
            assertThat(round()).isEqualTo(Outcome.SAMPLED);
        }
        assertThat(log.messages().getLast())
                .as("the last line says the cluster works")
                .contains("works again");
    }

    @Test
    void aFailureAndItsRecovery_eachSaidAtOnce() {
        engines.answer("p1", "vllm:num_requests_waiting 1\n");
        engines.handle(
                "p2", (req, res) -> res.status(Status.SERVICE_UNAVAILABLE_503).send());
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);
        engines.answer("p2", "vllm:num_requests_waiting 2\n");
        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        assertThat(log.messages()).hasSize(2);
        assertThat(log.messages().getLast()).isEqualTo("queue scrape of cluster east/a works again");
    }
}
