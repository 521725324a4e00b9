package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixAffinitySettings.Calibrated;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.prefix.UsageReport;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.ScriptedRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The load and learning settings in the router: a burst between two scrapes spreads with {@code count_sent_since_scrape}; {@code auto}
 * prices a match with the cluster's own numbers; {@code learn_from_usage} stops a cluster whose engine evicted what
 * the memory remembers from staying sticky. Each test runs the same steps with the feature off and shows the seed's
 * behaviour, so it fails without the feature.
 */
class SiteRouterLearningTest {
    private static final ClusterId EAST_A = RouterGrids.EAST_A;
    private static final ClusterId EAST_B = RouterGrids.EAST_B;
    private static final ClusterId WEST_A = RouterGrids.WEST_A;

    private final ManualClock clock = new ManualClock();

    private static Grid grid() {
        return RouterGrids.threeClusters("m");
    }

    private SiteRouter router(PrefixAffinitySettings settings, boolean countSent) {
        PrefixMemory memory = new PrefixMemory(settings, clock, 42);
        RoutingParts parts = new RoutingParts(
                memory,
                new QueueDepthWindow(Duration.ofSeconds(1)),
                new OutlierEjector(),
                ScriptedRandom.neverExploring(),
                clock,
                RoutingListener.NONE);
        SiteRouter router = new SiteRouter(grid(), settings, TagKeyRing.none(), parts);
        router.reconfigure(grid(), settings, TagKeyRing.none(), new LoadRules(countSent, LoadOrder.DEPTH));
        return router;
    }

    private static PromptKeys prompt(long first, int blocks) {
        return RouterGrids.prompt("m", first, blocks);
    }

    private static PromptKeys unkeyed() {
        return new PromptKeys(
                Optional.of("m"), Optional.empty(), BlockKeys.none(), Optional.of(NoKeysReason.EMPTY_PROMPT));
    }

    private void scrape(SiteRouter router, ClusterId cluster, double waiting) {
        router.scraped(cluster, EngineSample.queueOnly(clock.nanoTime(), waiting));
    }

    private void scrapeAll(SiteRouter router, double eastA, double eastB, double westA) {
        scrape(router, EAST_A, eastA);
        scrape(router, EAST_B, eastB);
        scrape(router, WEST_A, westA);
    }

    private static RouteDecision forward(Route route) {
        return ((Route.Forward) route).decision();
    }

    private static Map<String, Integer> burst(SiteRouter router, int requests) {
        Map<String, Integer> sent = new TreeMap<>();
        for (int i = 0; i < requests; i++) {
            sent.merge(forward(router.route(unkeyed())).cluster().id().name(), 1, Integer::sum);
        }
        return sent;
    }

    // --- count_sent_since_scrape

    @Test
    void burstBetweenScrapes_herdsWithoutTheCount() {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), false);
        scrapeAll(router, 0, 0, 0);

        assertThat(burst(router, 6)).containsExactly(Map.entry("east-a", 6));
    }

    @Test
    void burstBetweenScrapes_spreadsWithTheCount_andAScrapeResetsIt() {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), true);
        scrapeAll(router, 0, 0, 0);

        assertThat(burst(router, 6))
                .containsExactly(Map.entry("east-a", 2), Map.entry("east-b", 2), Map.entry("west-a", 2));
        assertThat(router.inFlightSinceScrape(EAST_A)).isEqualTo(2);
        scrape(router, EAST_A, 2);
        assertThat(router.inFlightSinceScrape(EAST_A))
                .as("now part of the scraped depth")
                .isZero();
    }

    @Test
    void burstBetweenScrapes_fillsFreeSlotsFirst_inProportionToHowFullEachBatchIs() {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), true);
        calibrate(router, EAST_A, 12);
        calibrate(router, EAST_B, 12);
        calibrate(router, WEST_A, 12);
        running(router, EAST_A, 2);
        running(router, EAST_B, 11);
        running(router, WEST_A, 11);

        // east-a has 10 free slots, the others 1: what is sent there queues nowhere until they fill.
        Map<String, Integer> sent = burst(router, 12);
        assertThat(sent.get("east-a")).isEqualTo(10);
        assertThat(sent.get("east-b") + sent.get("west-a")).isEqualTo(2);
    }

    private void running(SiteRouter router, ClusterId cluster, double running) {
        OptionalDouble none = OptionalDouble.empty();
        router.scraped(
                cluster,
                new EngineSample(
                        clock.nanoTime(),
                        OptionalDouble.of(0),
                        OptionalDouble.of(running),
                        none,
                        none,
                        none,
                        none,
                        none,
                        none));
    }

    // --- auto prices

    /** Twenty scrapes of an engine that prefills 2,000 tokens/s over 12 slots, each request running 6 s. */
    private void calibrate(SiteRouter router, ClusterId cluster) {
        calibrate(router, cluster, 12);
    }

    private void calibrate(SiteRouter router, ClusterId cluster, int slots) {
        RouterGrids.calibrate(router, clock, cluster, slots, 2_000);
    }

    private AffinityOutcome stickyAgainstOneQueuedRequest(PrefixAffinitySettings settings) {
        SiteRouter router = router(settings, false);
        calibrate(router, EAST_A);
        calibrate(router, EAST_B);
        calibrate(router, WEST_A);
        scrapeAll(router, 0, 0, 0);
        RouteDecision first = forward(router.route(prompt(1, 40)));
        router.answered(first, 200);
        ClusterId sticky = first.cluster().id();
        scrapeAll(router, sticky.equals(EAST_A) ? 1 : 0, sticky.equals(EAST_B) ? 1 : 0, sticky.equals(WEST_A) ? 1 : 0);
        return forward(router.route(prompt(1, 40))).outcome().orElseThrow();
    }

    @Test
    void gate_configuredNumbers_oneQueuedRequestOutweighsAFortyBlockMatch() {
        // The seed's pricing: 40 × 64 / 10,000 / 2 = 0.128 of a queued request.
        assertThat(stickyAgainstOneQueuedRequest(PrefixAffinitySettings.defaults()))
                .isEqualTo(AffinityOutcome.LOAD);
    }

    @Test
    void gate_measuredNumbers_theSameMatchOutweighsOneQueuedRequest() {
        // Measured: 2,000 tokens/s and 6 s ÷ 12 slots = 0.5 s a queued request, so the match saves 1.28 s = 2.56
        // queued requests.
        SiteRouter router = router(PrefixAffinitySettings.defaults().with(Calibrated.ALL, false), false);
        calibrate(router, EAST_A);
        assertThat(router.prices(EAST_A).prefillTokensPerSecond()).isCloseTo(2_000, within(1e-6));
        assertThat(router.prices(EAST_A).queuedRequestSeconds()).isCloseTo(0.5, within(1e-9));
        assertThat(router.prices(EAST_A).capacity()).hasValue(2_500);
        assertThat(stickyAgainstOneQueuedRequest(
                        PrefixAffinitySettings.defaults().with(Calibrated.ALL, false)))
                .isEqualTo(AffinityOutcome.HIT);
    }

    /** Calibrates {@code cluster} over {@code slots} and shows it saturated: a line waits while they all run. */
    private void saturated(SiteRouter router, ClusterId cluster, int slots) {
        calibrate(router, cluster, slots);
        OptionalDouble none = OptionalDouble.empty();
        router.scraped(
                cluster,
                new EngineSample(
                        clock.nanoTime(),
                        OptionalDouble.of(1),
                        OptionalDouble.of(slots),
                        none,
                        none,
                        none,
                        none,
                        none,
                        none));
    }

    @Test
    void order_measuredCosts_aClusterThatDrainsTwiceAsFastTakesTwiceTheBurst() {
        SiteRouter router = router(PrefixAffinitySettings.defaults().with(Calibrated.ALL, false), true);
        saturated(router, EAST_A, 24);
        saturated(router, EAST_B, 12);
        saturated(router, WEST_A, 12);
        scrapeAll(router, 0, 0, 0);

        assertThat(burst(router, 8))
                .containsExactly(Map.entry("east-a", 4), Map.entry("east-b", 2), Map.entry("west-a", 2));
    }

    @Test
    void order_configuredCosts_theBurstSpreadsEvenly() {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), true);
        saturated(router, EAST_A, 24);
        saturated(router, EAST_B, 12);
        saturated(router, WEST_A, 12);
        scrapeAll(router, 0, 0, 0);

        assertThat(burst(router, 6))
                .containsExactly(Map.entry("east-a", 2), Map.entry("east-b", 2), Map.entry("west-a", 2));
    }

    // --- learn_from_usage

    /**
     * Two conversations confirmed at east-a 100 s ago; a turn of the first comes back with no cached tokens (the
     * engine evicted it). Returns how a turn of the second, never reported on, is then decided.
     */
    private RouteDecision staleSecondConversation(boolean learn) {
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults().with(Calibrated.NONE, learn);
        SiteRouter router = router(settings, false);
        scrapeAll(router, 0, 1, 1);
        router.answered(forward(router.route(prompt(1_000, 40))), 200);
        router.answered(forward(router.route(prompt(2_000, 40))), 200);
        clock.advance(Duration.ofSeconds(100));
        scrapeAll(router, 0, 1, 1);
        RouteDecision stale = forward(router.route(prompt(1_000, 41)));
        assertThat(stale.cluster().id()).isEqualTo(EAST_A);
        assertThat(stale.predictedCachedTokens()).isEqualTo(40 * 64);
        router.answered(stale, 200);
        router.usageReported(stale, 0);
        clock.advance(Duration.ofSeconds(1));
        scrapeAll(router, 0, 1, 1);
        return forward(router.route(prompt(2_000, 41)));
    }

    @Test
    void usage_withoutLearning_anEvictedClusterStaysSticky() {
        RouteDecision decision = staleSecondConversation(false);

        assertThat(decision.outcome()).contains(AffinityOutcome.HIT);
        assertThat(decision.predictedCachedTokens()).isEqualTo(40 * 64);
    }

    @Test
    void usage_withLearning_entriesOlderThanTheEnginesHorizonStopCounting() {
        RouteDecision decision = staleSecondConversation(true);

        assertThat(decision.outcome()).contains(AffinityOutcome.MISS);
        assertThat(decision.predictedCachedTokens()).isZero();
    }

    @Test
    void usage_withLearning_recentEntriesKeepTheirAffinity() {
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults().with(Calibrated.NONE, true);
        SiteRouter router = router(settings, false);
        scrapeAll(router, 0, 1, 1);
        router.answered(forward(router.route(prompt(1_000, 40))), 200);
        clock.advance(Duration.ofSeconds(100));
        scrapeAll(router, 0, 1, 1);
        router.answered(forward(router.route(prompt(3_000, 40))), 200);
        RouteDecision stale = forward(router.route(prompt(1_000, 41)));
        router.answered(stale, 200);
        router.usageReported(stale, 0);
        clock.advance(Duration.ofSeconds(10));
        scrapeAll(router, 0, 1, 1);

        RouteDecision recent = forward(router.route(prompt(3_000, 41)));
        assertThat(recent.outcome()).contains(AffinityOutcome.HIT);
        assertThat(recent.predictedCachedTokens()).isEqualTo(40 * 64);
    }

    @Test
    void usage_aReportOfEverythingHeldRaisesTheHorizonAgain() {
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults().with(Calibrated.NONE, true);
        SiteRouter router = router(settings, false);
        scrapeAll(router, 0, 1, 1);
        router.answered(forward(router.route(prompt(1_000, 40))), 200);
        router.answered(forward(router.route(prompt(2_000, 40))), 200);
        clock.advance(Duration.ofSeconds(100));
        RouteDecision evicted = forward(router.route(prompt(1_000, 41)));
        router.usageReported(evicted, 0);
        long horizon = router.horizonNanos(EAST_A);
        // The witness's bucket: ages of 64 s to 128 s.
        assertThat(horizon).isEqualTo(Duration.ofSeconds(64).toNanos());

        clock.advance(Duration.ofSeconds(100));
        // Routed to east-a by load although not sticky: its engine reports the 200 s old prefix whole.
        RouteDecision held = forward(router.route(prompt(2_000, 41)));
        assertThat(held.cluster().id()).isEqualTo(EAST_A);
        router.usageReported(held, 40 * 64);
        assertThat(router.horizonNanos(EAST_A)).isGreaterThan(horizon);
    }

    /**
     * As {@link #staleSecondConversation}, the engine reporting as vLLM does with prompt-token details on: a count
     * only above 0 ({@code null} for 0). With {@code reportedBefore} it reported a count on that API once before.
     */
    private RouteDecision staleSecondConversationVllmLike(boolean reportedBefore) {
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults().with(Calibrated.NONE, true);
        SiteRouter router = router(settings, false);
        scrapeAll(router, 0, 1, 1);
        RouteDecision first = forward(router.route(prompt(1_000, 40)));
        router.answered(first, 200);
        router.answered(forward(router.route(prompt(2_000, 40))), 200);
        if (reportedBefore) {
            RouteDecision again = forward(router.route(prompt(1_000, 40)));
            router.answered(again, 200);
            assertThat(router.usageReported(again, UsageReport.counted(ApiDialect.CHAT_COMPLETIONS, 40 * 64)))
                    .hasValue(40 * 64);
        }
        clock.advance(Duration.ofSeconds(100));
        scrapeAll(router, 0, 1, 1);
        RouteDecision stale = forward(router.route(prompt(1_000, 41)));
        router.answered(stale, 200);
        // The engine had evicted it: "prompt_tokens_details": null.
        router.usageReported(stale, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS));
        clock.advance(Duration.ofSeconds(1));
        scrapeAll(router, 0, 1, 1);
        return forward(router.route(prompt(2_000, 41)));
    }

    @Test
    void usage_vllmNullForZero_fromAClusterKnownToReport_isAnEviction() {
        RouteDecision decision = staleSecondConversationVllmLike(true);

        assertThat(decision.outcome()).contains(AffinityOutcome.MISS);
    }

    @Test
    void usage_silenceFromAClusterNeverSeenReporting_teachesNothing() {
        RouteDecision decision = staleSecondConversationVllmLike(false);

        assertThat(decision.outcome()).contains(AffinityOutcome.HIT);
        assertThat(decision.predictedCachedTokens()).isEqualTo(40 * 64);
    }
}
