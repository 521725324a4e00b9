package grid.gateway.app.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.load.QueueScraper.Outcome;
import grid.gateway.routing.LoadRules;
import grid.gateway.routing.Route;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.EngineSeriesParser;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixAffinitySettings.Calibrated;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scraper against engines that behave as real ones do under load or export less than the simulator: a scrape
 * that stalls (vLLM's {@code /metrics} answered nothing for about 8 s under a 200-request burst) neither wipes out
 * what was sent while it hung nor freezes the cluster's depth; an engine without
 * {@code vllm:request_inference_time_seconds} still gets its prefill rate calibrated, and the missing series is named.
 */
class QueueScraperSignalsTest {
    private static final SiteName EAST = new SiteName("east");
    private static final ClusterId A = new ClusterId(EAST, "a");
    private static final ClusterId B = new ClusterId(EAST, "b");

    private final FakeEngines engines = new FakeEngines();
    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(2));
    private final AtomicReference<Grid> grid = new AtomicReference<>();
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final SiteRouter router = new SiteRouter(
            Grid.of(EAST, List.of(cluster(A), cluster(B))),
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            QueueScraperTest.parts(clock, window));
    private final QueueScraper scraper =
            new QueueScraper(grid::get, () -> LoadSettings.defaults(), router, clock, scheduler);

    @AfterEach
    void stop() {
        scraper.close();
        scheduler.shutdownNow();
        engines.close();
    }

    private BackendCluster cluster(ClusterId id) {
        return new BackendCluster(
                        id, engines.base(id.name()), Set.of("demo-model"), Optional.empty(), OptionalInt.empty(), false)
                .withMaxRunning(OptionalInt.of(1));
    }

    private void inForce(PrefixAffinitySettings settings) {
        Grid clusters = Grid.of(EAST, List.of(cluster(A), cluster(B)));
        grid.set(clusters);
        router.reconfigure(clusters, settings, TagKeyRing.none(), new LoadRules(true, LoadOrder.DEPTH));
    }

    private static final String IDLE = "vllm:num_requests_waiting 0\nvllm:num_requests_running 0\n";

    private List<String> burst(int requests) {
        List<String> sentTo = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            RouteDecision decision = ((Route.Forward) router.newConversation(Set.of())).decision();
            sentTo.add(decision.cluster().id().name());
        }
        return sentTo;
    }

    @Test
    void stalledScrape_whatWasSentWhileItHungStaysCounted_andKeepsSpreadingTheBurst() {
        engines.answer("a", IDLE);
        engines.answer("b", IDLE);
        inForce(PrefixAffinitySettings.defaults());
        assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);
        CountDownLatch stall = new CountDownLatch(1);
        engines.handle("a", (req, res) -> {
            stall.await();
            res.send(IDLE);
        });
        Map<ClusterId, CompletableFuture<Outcome>> round = scraper.pollNow();
        CompletableFuture<Outcome> stalled = round.get(A);
        Map<ClusterId, CompletableFuture<Outcome>> again = scraper.pollNow();
        assertThat(again.get(A)).as("no second round while one hangs").isSameAs(stalled);
        // b's scrapes end before the burst: one that began during it would take what the burst sent b off its count.
        round.get(B).join();
        again.get(B).join();

        // Two clusters of one slot each, both idle at the last scrape: a burst while a's scrape hangs.
        List<String> during = burst(4);
        clock.advance(Duration.ofSeconds(1));
        stall.countDown();

        assertThat(stalled.join()).isEqualTo(Outcome.SAMPLED);
        assertThat(during).containsExactlyInAnyOrder("a", "a", "b", "b");
        // The late answer began before the burst: the two sent to a are still counted, not wiped.
        assertThat(router.inFlightSinceScrape(A)).isEqualTo(2);
        assertThat(burst(2)).containsExactlyInAnyOrder("a", "b");
        // A round that begins after them takes them off.
        scraper.pollNow().values().forEach(CompletableFuture::join);
        assertThat(router.inFlightSinceScrape(A)).isZero();
    }

    @Test
    void stalledScrape_pastTheWindow_theClusterIsUnmeasuredAndGoesLast() {
        engines.answer("a", IDLE);
        engines.answer("b", IDLE);
        inForce(PrefixAffinitySettings.defaults());
        scraper.pollNow().values().forEach(CompletableFuture::join);
        CountDownLatch stall = new CountDownLatch(1);
        engines.handle("a", (req, res) -> {
            stall.await();
            res.send(IDLE);
        });
        CompletableFuture<Outcome> stalled = scraper.pollNow().get(A);
        clock.advance(Duration.ofSeconds(3));
        scraper.pollNow().get(B).join();

        // a's last depth is older than the 2 s window: not kept as if fresh, and an unmeasured cluster is never
        // preferred to a measured one, so the burst goes to b.
        assertThat(window.worst(A, clock.nanoTime())).isEmpty();
        assertThat(burst(3)).containsOnly("b");
        stall.countDown();
        assertThat(stalled.join()).isEqualTo(Outcome.SAMPLED);
    }

    /** An engine exporting the prefill series and request_success_total, but no inference-time histogram. */
    private static String withoutInferenceTime(int requests) {
        double prompt = requests * 3_000.0;
        double hits = requests * 1_000.0;
        double prefill = requests * 2_000 / 4_000.0;
        return String.format(Locale.ROOT, """
                vllm:num_requests_waiting{engine="0"} 0
                vllm:num_requests_running{engine="0"} 2
                vllm:prompt_tokens_total{engine="0"} %.1f
                vllm:prefix_cache_hits_total{engine="0"} %.1f
                vllm:request_prefill_time_seconds_sum{engine="0"} %.4f
                vllm:request_success_total{engine="0",finished_reason="stop"} %d.0
                """, prompt, hits, prefill, requests);
    }

    @Test
    void calibration_engineWithoutInferenceTime_prefillRateStillMeasured_missingSeriesNamed() {
        engines.answer("b", IDLE);
        inForce(PrefixAffinitySettings.defaults().with(Calibrated.ALL, false));
        for (int round = 0; round <= 5; round++) {
            engines.answer("a", withoutInferenceTime(round * 5));
            clock.advance(Duration.ofSeconds(1));
            assertThat(scraper.pollNow().get(A).join()).isEqualTo(Outcome.SAMPLED);
        }

        assertThat(router.prices(A).measuredPrefill()).isTrue();
        assertThat(router.prices(A).prefillTokensPerSecond()).isCloseTo(4_000, within(1e-6));
        assertThat(router.prices(A).measuredQueued()).isFalse();
        assertThat(router.missingSeries(A))
                .containsExactlyInAnyOrder(
                        EngineSeriesParser.RUNNING_SECONDS,
                        EngineSeriesParser.RUNNING_REQUESTS,
                        EngineSeriesParser.CACHE_CONFIG);
        assertThat(OptionalDouble.of(router.prices(A).queuedRequestSeconds())).hasValue(2);
    }
}
