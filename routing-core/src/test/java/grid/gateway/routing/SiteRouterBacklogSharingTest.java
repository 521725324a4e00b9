package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.time.ManualClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The router's prefill backlog shared between replicas ({@code sharing.share_backlog}): under
 * {@code load.order_by: expected_wait} each send is offered to the peers, and a peer's send steers the next prompt as
 * an own send would; under {@code depth} nothing is offered.
 */
class SiteRouterBacklogSharingTest {
    private final ManualClock clock = new ManualClock();

    private record Offered(ClusterId cluster, double seconds) {}

    private SiteRouter router(LoadOrder order) {
        return router(order, new PrefillBacklog());
    }

    private SiteRouter router(LoadOrder order, PrefillBacklog backlog) {
        SiteRouter router = RouterGrids.router(clock, PrefixAffinitySettings.defaults(), order, backlog);
        RouterGrids.idle(router, clock);
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
        SiteRouter sender = router(LoadOrder.EXPECTED_WAIT, one);
        SiteRouter other = router(LoadOrder.EXPECTED_WAIT, one);

        ClusterId first = route(sender, prompt(1));

        assertThat(other.backlog()).isSameAs(one);
        assertThat(other.backlog().seconds(first, clock.nanoTime())).isPositive();
        assertThat(route(other, prompt(1)))
                .as("2.56 s of the sender's prefill there, none elsewhere")
                .isNotEqualTo(first);
    }
}
