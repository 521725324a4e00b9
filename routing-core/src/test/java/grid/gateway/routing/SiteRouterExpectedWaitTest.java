package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixAffinitySettings.Calibrated;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code load.order_by: expected_wait} in the router: a long first prompt goes to the cluster that prefills it soonest,
 * and the prefill this replica sent spreads a burst of long prompts that no scrape has seen yet. Each test runs the same
 * steps under {@code depth} and shows the seed's choice, so it fails without the setting.
 */
class SiteRouterExpectedWaitTest {
    private static final ClusterId EAST_A = RouterGrids.EAST_A;
    private static final ClusterId EAST_B = RouterGrids.EAST_B;
    private static final ClusterId WEST_A = RouterGrids.WEST_A;

    private final ManualClock clock = new ManualClock();

    private SiteRouter router(PrefixAffinitySettings settings, LoadOrder order) {
        return RouterGrids.router(clock, settings, order);
    }

    private static PromptKeys prompt(long first, int blocks) {
        return RouterGrids.prompt("m", first, blocks);
    }

    private static RouteDecision route(SiteRouter router, PromptKeys keys) {
        return ((Route.Forward) router.route(keys)).decision();
    }

    private void idle(SiteRouter router) {
        RouterGrids.idle(router, clock);
    }

    /** Twenty scrapes of an engine prefilling {@code rate} uncached tokens a second over 12 slots. */
    private void calibrate(SiteRouter router, ClusterId cluster, double rate) {
        RouterGrids.calibrate(router, clock, cluster, 12, rate);
    }

    private String firstPromptOnSlowAndFastClusters(LoadOrder order) {
        SiteRouter router = router(PrefixAffinitySettings.defaults().with(Calibrated.ALL, false), order);
        calibrate(router, EAST_A, 2_000);
        calibrate(router, EAST_B, 2_000);
        calibrate(router, WEST_A, 20_000);
        idle(router);
        return route(router, prompt(1, 400)).cluster().id().name();
    }

    @Test
    void longFirstPrompt_depthOrder_takesTheFirstIdleClusterWhateverItsSpeed() {
        assertThat(firstPromptOnSlowAndFastClusters(LoadOrder.DEPTH)).isEqualTo("east-a");
    }

    @Test
    void longFirstPrompt_expectedWait_takesTheFastCluster() {
        assertThat(firstPromptOnSlowAndFastClusters(LoadOrder.EXPECTED_WAIT)).isEqualTo("west-a");
    }

    @Test
    void explain_expectedWait_namesTheClusterThatRoutingTakes() {
        SiteRouter router =
                router(PrefixAffinitySettings.defaults().with(Calibrated.ALL, false), LoadOrder.EXPECTED_WAIT);
        calibrate(router, EAST_A, 2_000);
        calibrate(router, EAST_B, 2_000);
        calibrate(router, WEST_A, 20_000);
        idle(router);
        Explanation explained = router.explain(prompt(1, 400));
        assertThat(((Route.Forward) explained.route()).decision().cluster().id().name())
                .isEqualTo("west-a");
        assertThat(explained
                        .decision()
                        .orElseThrow()
                        .ordered()
                        .getFirst()
                        .cluster()
                        .id()
                        .name())
                .isEqualTo("west-a");
    }

    private List<String> burstOfLongPrompts(LoadOrder order) {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), order);
        idle(router);
        List<String> chosen = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // 400 blocks: 25,600 tokens, 2.56 s at the configured 10,000 tokens/s.
            chosen.add(route(router, prompt(1_000L * i, 400)).cluster().id().name());
        }
        return chosen;
    }

    @Test
    void burstBetweenScrapes_depthOrder_herds() {
        assertThat(burstOfLongPrompts(LoadOrder.DEPTH)).containsExactly("east-a", "east-a", "east-a");
    }

    @Test
    void burstBetweenScrapes_expectedWait_eachPromptWaitsForNoneOfTheOthers() {
        assertThat(burstOfLongPrompts(LoadOrder.EXPECTED_WAIT)).containsExactly("east-a", "east-b", "west-a");
    }

    @Test
    void backlog_drainsInRealTime_andCountsOnlyWhatIsLeftToCompute() {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), LoadOrder.EXPECTED_WAIT);
        idle(router);
        RouteDecision first = route(router, prompt(1, 400));
        assertThat(first.cluster().id()).isEqualTo(EAST_A);
        router.answered(first, 200);

        clock.advance(Duration.ofSeconds(2));
        // The next turn holds 400 of 410 blocks at east-a, 0.56 s of its backlog left: 0.624 s against 2.624 s
        // elsewhere; only its 10 new blocks join the backlog.
        RouteDecision turn = route(router, prompt(1, 410));
        assertThat(turn.cluster().id()).isEqualTo(EAST_A);
        assertThat(turn.outcome()).contains(AffinityOutcome.HIT);
        assertThat(route(router, prompt(5_000, 400)).cluster().id())
                .as("a new prompt waits for none of east-a's 0.624 s elsewhere")
                .isEqualTo(EAST_B);

        clock.advance(Duration.ofMillis(700));
        assertThat(route(router, prompt(9_000, 400)).cluster().id())
                .as("east-a's backlog is worked off: free again, first in config order")
                .isEqualTo(EAST_A);
    }

    /**
     * Four prompts at once (400, 400, 400 and 40 blocks: 2.56, 2.56, 2.56 and 0.256 s at the configured 10,000
     * tokens/s); half a second later the first one's first token arrives (its engine was five times faster than the
     * estimate), and a fifth prompt of 400 blocks is routed.
     */
    private String fifthPrompt(boolean firstTokenReported) {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), LoadOrder.EXPECTED_WAIT);
        idle(router);
        RouteDecision first = route(router, prompt(1, 400));
        assertThat(List.of(
                        first.cluster().id(),
                        route(router, prompt(1_000, 400)).cluster().id(),
                        route(router, prompt(2_000, 400)).cluster().id(),
                        route(router, prompt(3_000, 40)).cluster().id()))
                .containsExactly(EAST_A, EAST_B, WEST_A, EAST_A);
        clock.advance(Duration.ofMillis(500));
        if (firstTokenReported) {
            router.firstToken(first);
        }
        return route(router, prompt(4_000, 400)).cluster().id().name();
    }

    @Test
    void firstToken_reanchorsTheBacklog_toWhatWasSentAfterIt() {
        // east-a has only the 40-block prompt left (0.256 s), the others 2.06 s each.
        assertThat(fifthPrompt(true)).isEqualTo("east-a");
    }

    @Test
    void withoutFirstTokens_theBacklogOnlyDrainsAsEstimated() {
        // east-a: 2.816 − 0.5 = 2.316 s against 2.06 s elsewhere.
        assertThat(fifthPrompt(false)).isEqualTo("east-b");
    }

    @Test
    void firstToken_depthOrder_hasNoBacklogToAnchor() {
        SiteRouter router = router(PrefixAffinitySettings.defaults(), LoadOrder.DEPTH);
        idle(router);
        RouteDecision decision = route(router, prompt(1, 400));
        assertThat(decision.backlogMark()).isEqualTo(-1);
        router.firstToken(decision);
        assertThat(route(router, prompt(1_000, 400)).cluster().id()).isEqualTo(EAST_A);
    }
}
