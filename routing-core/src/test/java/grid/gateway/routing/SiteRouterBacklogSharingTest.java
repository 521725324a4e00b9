package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.ScriptedRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The router's prefill backlog shared between replicas ({@code sharing.share_backlog}): under
 * {@code load.order_by: expected_wait} each send is offered to the peers, and a peer's send steers the next prompt as
 * an own send would; under {@code depth} nothing is offered.
 */
class SiteRouterBacklogSharingTest {
    private static final ClusterId EAST_A = RouterGrids.EAST_A;
    private static final ClusterId EAST_B = RouterGrids.EAST_B;
    private static final ClusterId WEST_A = RouterGrids.WEST_A;

    private final ManualClock clock = new ManualClock();

    private record Offered(ClusterId cluster, double seconds) {}

    private SiteRouter router(LoadOrder order) {
        Grid grid = RouterGrids.threeClusters("m");
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
        RoutingParts parts = new RoutingParts(
                new PrefixMemory(settings, clock, 42),
                new QueueDepthWindow(Duration.ofSeconds(2)),
                new OutlierEjector(),
                ScriptedRandom.neverExploring(),
                clock,
                RoutingListener.NONE);
        SiteRouter router = new SiteRouter(grid, settings, TagKeyRing.none(), parts, new LoadRules(false, order));
        for (ClusterId id : List.of(EAST_A, EAST_B, WEST_A)) {
            router.scraped(id, EngineSample.queueOnly(clock.nanoTime(), 0));
        }
        return router;
    }

    private static PromptKeys prompt(long first) {
        return RouterGrids.prompt("m", first, 400);
    }

    private static ClusterId route(SiteRouter router, PromptKeys keys) {
        return ((Route.Forward) router.route(keys)).decision().cluster().id();
    }

    @Test
    void expectedWait_offersEachSend_withTheSecondsItAddedHere() {
        SiteRouter router = router(LoadOrder.EXPECTED_WAIT);
        List<Offered> offered = new ArrayList<>();
        router.backlog().sharing((cluster, seconds) -> offered.add(new Offered(cluster, seconds)));

        ClusterId chosen = route(router, prompt(1));

        assertThat(offered).hasSize(1);
        assertThat(offered.getFirst().cluster()).isEqualTo(chosen);
        assertThat(offered.getFirst().seconds())
                .isCloseTo(router.backlog().seconds(chosen, clock.nanoTime()), within(1e-9))
                .isPositive();
    }

    @Test
    void depth_offersNothing() {
        SiteRouter router = router(LoadOrder.DEPTH);
        List<Offered> offered = new ArrayList<>();
        router.backlog().sharing((cluster, seconds) -> offered.add(new Offered(cluster, seconds)));

        route(router, prompt(1));

        assertThat(offered).isEmpty();
    }

    @Test
    void aPeersSend_steersTheNextPromptAsAnOwnSendWould() {
        SiteRouter alone = router(LoadOrder.EXPECTED_WAIT);
        ClusterId first = route(alone, prompt(1));
        SiteRouter told = router(LoadOrder.EXPECTED_WAIT);
        // A peer sent that cluster 30 s of prefill 10 ms ago.
        assertThat(told.backlog().peerSent(first, 30, 10_000_000L, clock.nanoTime()))
                .isTrue();

        assertThat(route(told, prompt(1))).isNotEqualTo(first);
        assertThat(route(router(LoadOrder.EXPECTED_WAIT), prompt(1)))
                .as("without it")
                .isEqualTo(first);
    }

    @Test
    void routersGivenOneBacklog_countEachOthersSends() {
        PrefillBacklog one = new PrefillBacklog();
        SiteRouter sender = router(LoadOrder.EXPECTED_WAIT);
        SiteRouter other = router(LoadOrder.EXPECTED_WAIT);
        sender.useBacklog(one);
        other.useBacklog(one);

        ClusterId first = route(sender, prompt(1));

        assertThat(other.backlog()).isSameAs(one);
        assertThat(other.backlog().seconds(first, clock.nanoTime())).isPositive();
        assertThat(route(other, prompt(1)))
                .as("2.56 s of the sender's prefill there, none elsewhere")
                .isNotEqualTo(first);
    }
}
