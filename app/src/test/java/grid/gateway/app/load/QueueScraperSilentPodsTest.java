package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster of three pods, one of which stops giving its page, on real loopback sockets. A pod that is reached but
 * gives no page (a 503, a page cut short) is silent, its load unknown: it counts with its latest depth, never as an
 * idle pod. A pod whose address refuses the connection is down, its queue gone with it: it is left out.
 */
class QueueScraperSilentPodsTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");

    private final FakeEngines engines = new FakeEngines();
    /** The second pod, on a server of its own, so that it can go down (its port then refuses). */
    private final FakeEngines second = new FakeEngines();

    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final Grid grid = Grid.of(
            EAST,
            List.of(new BackendCluster(
                    A,
                    URI.create("http://127.0.0.1:9"),
                    Set.of("demo-model"),
                    new MetricsSource.Urls(List.of(
                            URI.create(engines.base("p1") + "/metrics"),
                            URI.create(second.base("p2") + "/metrics"),
                            URI.create(engines.base("p3") + "/metrics"))),
                    OptionalInt.empty(),
                    false)));
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
        second.close();
    }

    /** One round; the clock first moves past the window, so that the depth read is this round's alone. */
    private Outcome round() {
        clock.advance(Duration.ofSeconds(11));
        return scraper.pollNow().get(A).join();
    }

    private OptionalDouble depth() {
        return window.worst(A, clock.nanoTime());
    }

    private void answering(int p1, int p2, int p3) {
        engines.answer("p1", "vllm:num_requests_waiting " + p1 + "\n");
        second.answer("p2", "vllm:num_requests_waiting " + p2 + "\n");
        engines.answer("p3", "vllm:num_requests_waiting " + p3 + "\n");
    }

    @Test
    void aPodAnswering503_countsWithItsLatestDepth_untilItAnswersAgain() {
        answering(3, 40, 2);
        assertThat(round()).isEqualTo(Outcome.SAMPLED);
        assertThat(depth()).hasValue(45);

        second.handle(
                "p2", (req, res) -> res.status(Status.SERVICE_UNAVAILABLE_503).send());
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);
        assertThat(depth())
                .as("the busy pod that stopped answering is not read as idle")
                .hasValue(45);

        engines.answer("p1", "vllm:num_requests_waiting 1\n");
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);
        assertThat(depth()).hasValue(43);

        second.answer("p2", "vllm:num_requests_waiting 7\n");
        assertThat(round()).isEqualTo(Outcome.SAMPLED);
        assertThat(depth()).hasValue(10);
    }

    @Test
    void aPodWhosePageIsCutShort_countsWithItsLatestDepth() {
        answering(3, 40, 2);
        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        second.answer("p2", "vllm:num_requests_waiting 4");
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);

        assertThat(depth()).hasValue(45);
    }

    @Test
    void aPodWhoseAddressRefuses_isDown_leftOut() {
        answering(3, 40, 2);
        assertThat(round()).isEqualTo(Outcome.SAMPLED);

        second.close();
        assertThat(round()).isEqualTo(Outcome.PARTLY_SAMPLED);

        assertThat(depth())
                .as("nothing runs at the pod's address: its queue went with it")
                .hasValue(5);
    }
}
