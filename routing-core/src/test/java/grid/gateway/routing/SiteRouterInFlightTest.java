package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.ScriptedRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@code count_sent_since_scrape} counts what is in flight, not what was sent: light sequential traffic, each request
 * answered before the next, never builds a queue on its sticky cluster between two scrapes, whatever the engine was
 * seen running; a burst still spreads; the operator's {@code max_running} is used where set; and a scrape that stalls
 * neither wipes out what was sent during the stall nor freezes the cluster's depth.
 */
class SiteRouterInFlightTest {
    private static final ClusterId EAST_A = RouterGrids.EAST_A;
    private static final ClusterId EAST_B = RouterGrids.EAST_B;
    private static final ClusterId WEST_A = RouterGrids.WEST_A;

    private final ManualClock clock = new ManualClock();

    private SiteRouter router(Grid grid, boolean countInFlight) {
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
        RoutingParts parts = new RoutingParts(
                new PrefixMemory(settings, clock, 42),
                new QueueDepthWindow(Duration.ofSeconds(2)),
                new OutlierEjector(),
                ScriptedRandom.neverExploring(),
                clock,
                RoutingListener.NONE);
        return new SiteRouter(grid, settings, TagKeyRing.none(), parts, new LoadRules(countInFlight, LoadOrder.DEPTH));
    }

    /** One scrape of {@code cluster}: {@code waiting} in line, {@code running} in the batch. */
    private void scrape(SiteRouter router, ClusterId cluster, double waiting, double running) {
        OptionalDouble none = OptionalDouble.empty();
        router.scraped(
                cluster,
                new EngineSample(
                        clock.nanoTime(),
                        OptionalDouble.of(waiting),
                        OptionalDouble.of(running),
                        none,
                        none,
                        none,
                        none,
                        none,
                        none));
    }

    private static PromptKeys turn(int turn) {
        // A conversation: each turn repeats the whole earlier one and adds two blocks.
        return RouterGrids.prompt("m", 1, 40 + 2 * turn);
    }

    private static PromptKeys unkeyed() {
        return new PromptKeys(
                Optional.of("m"), Optional.empty(), BlockKeys.none(), Optional.of(NoKeysReason.EMPTY_PROMPT));
    }

    private static RouteDecision forward(Route route) {
        return ((Route.Forward) route).decision();
    }

    /**
     * Sixty turns one after another between two scrapes, each answered (and its answer ended) before the next, on
     * clusters seen running 0 or 1 of slots nobody told the router; returns each turn's outcome after the first.
     */
    private List<AffinityOutcome> sequentialConversation(boolean countInFlight) {
        SiteRouter router = router(RouterGrids.threeClusters("m"), countInFlight);
        scrape(router, EAST_A, 0, 1);
        scrape(router, EAST_B, 0, 0);
        scrape(router, WEST_A, 0, 1);
        List<AffinityOutcome> outcomes = new ArrayList<>();
        String sticky = null;
        for (int t = 0; t < 60; t++) {
            RouteDecision decision = forward(router.route(turn(t)));
            router.answered(decision, 200);
            router.ended(decision);
            if (t == 0) {
                sticky = decision.cluster().id().name();
            } else {
                outcomes.add(decision.outcome().orElseThrow());
                assertThat(decision.cluster().id().name()).as("turn " + t).isEqualTo(sticky);
            }
            clock.advance(Duration.ofMillis(10));
        }
        return outcomes;
    }

    @Test
    void sequentialTurns_countInFlight_everyTurnStaysOnItsStickyCluster() {
        assertThat(sequentialConversation(true)).containsOnly(AffinityOutcome.HIT);
    }

    @Test
    void sequentialTurns_withoutTheCount_theSame() {
        assertThat(sequentialConversation(false)).containsOnly(AffinityOutcome.HIT);
    }

    @Test
    void runningZeroOrOneOfUnknownSlots_finishedRequestsMakeNoQueue() {
        SiteRouter router = router(RouterGrids.threeClusters("m"), true);
        scrape(router, EAST_A, 0, 1);
        scrape(router, EAST_B, 0, 0);
        scrape(router, WEST_A, 0, 1);
        for (int i = 0; i < 25; i++) {
            RouteDecision decision = forward(router.route(unkeyed()));
            router.answered(decision, 200);
            router.ended(decision);
        }

        for (ClusterId id : List.of(EAST_A, EAST_B, WEST_A)) {
            assertThat(router.inFlightSinceScrape(id)).isZero();
        }
        Explanation explained = router.explain(turn(0));
        assertThat(explained.decision().orElseThrow().ordered())
                .allSatisfy(c -> assertThat(c.queueDepth()).hasValue(0));
    }

    @Test
    void unknownSlots_requestsStillInFlight_queueNowhere_butSpreadByHowManyRun() {
        SiteRouter router = router(RouterGrids.threeClusters("m"), true);
        scrape(router, EAST_A, 0, 1);
        scrape(router, EAST_B, 0, 1);
        scrape(router, WEST_A, 0, 1);

        Map<String, Integer> sent = burst(router, 9);

        assertThat(sent).containsExactly(Map.entry("east-a", 3), Map.entry("east-b", 3), Map.entry("west-a", 3));
        Explanation explained = router.explain(turn(0));
        assertThat(explained.decision().orElseThrow().ordered())
                .as("no slot count is inferred from one sequence seen running")
                .allSatisfy(c -> assertThat(c.queueDepth()).hasValue(0));
    }

    private static Map<String, Integer> burst(SiteRouter router, int requests) {
        Map<String, Integer> sent = new TreeMap<>();
        for (int i = 0; i < requests; i++) {
            sent.merge(forward(router.route(unkeyed())).cluster().id().name(), 1, Integer::sum);
        }
        return sent;
    }

    @Test
    void maxRunning_configured_inFlightBeyondTheFreeSlotsQueues() {
        List<BackendCluster> clusters = new ArrayList<>();
        for (ClusterId id : List.of(EAST_A, EAST_B)) {
            clusters.add(RouterGrids.cluster(id, false, Set.of("m")).withMaxRunning(OptionalInt.of(2)));
        }
        SiteRouter router = router(Grid.of(new SiteName("east"), clusters), true);
        scrape(router, EAST_A, 0, 0);
        scrape(router, EAST_B, 0, 2);

        // east-a has 2 free slots, east-b none: the first two go to east-a, then each queues one at a time.
        Map<String, Integer> sent = burst(router, 6);

        assertThat(sent).containsExactly(Map.entry("east-a", 4), Map.entry("east-b", 2));
        assertThat(router.explain(unkeyed()).decision().orElseThrow().ordered())
                .extracting(c -> c.queueDepth().orElseThrow())
                .containsExactlyInAnyOrder(2.0, 2.0);
    }

    @Test
    void stalledScrape_whatWasSentDuringTheStallKeepsCounting() {
        List<BackendCluster> clusters = new ArrayList<>();
        for (ClusterId id : List.of(EAST_A, EAST_B)) {
            clusters.add(RouterGrids.cluster(id, false, Set.of("m")).withMaxRunning(OptionalInt.of(1)));
        }
        SiteRouter router = router(Grid.of(new SiteName("east"), clusters), true);
        scrape(router, EAST_A, 0, 0);
        scrape(router, EAST_B, 0, 0);
        long stalled = router.scrapeMark();

        Map<String, Integer> during = burst(router, 4);
        clock.advance(Duration.ofSeconds(1));
        OptionalDouble none = OptionalDouble.empty();
        // The scrape that began before the burst answers only now, and saw none of it.
        router.scraped(
                EAST_A,
                new EngineSample(
                        clock.nanoTime(),
                        OptionalDouble.of(0),
                        OptionalDouble.of(0),
                        none,
                        none,
                        none,
                        none,
                        none,
                        none),
                stalled);

        assertThat(during).containsExactly(Map.entry("east-a", 2), Map.entry("east-b", 2));
        assertThat(router.inFlightSinceScrape(EAST_A)).isEqualTo(2);
        assertThat(burst(router, 2)).containsExactly(Map.entry("east-a", 1), Map.entry("east-b", 1));
    }
}
