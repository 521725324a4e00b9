package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.ScriptedRandom;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A reload that moves a cluster to another URL (the operator fixing a dead address): connect failures and an ejection
 * belong to the URL they happened at, so the cluster at its new URL is admitted at once, and a request still in flight
 * to the old URL that fails after the move counts nothing against the new one. A reload that leaves the URL alone
 * keeps them.
 */
class SiteRouterMovedClusterTest {
    private static final URI DEAD = URI.create("http://127.0.0.1:1");
    private static final URI FIXED = URI.create("http://127.0.0.1:2");

    private final ManualClock clock = new ManualClock();
    private final SiteRouter router = new SiteRouter(
            grid(DEAD),
            PrefixAffinitySettings.defaults(),
            TagKeyRing.none(),
            new RoutingParts(
                    new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 42),
                    new QueueDepthWindow(Duration.ofSeconds(10)),
                    new OutlierEjector(),
                    ScriptedRandom.neverExploring(),
                    clock,
                    new RouterGrids.RecordingListener()));

    private static Grid grid(URI url) {
        return Grid.of(
                new SiteName("east"),
                List.of(new BackendCluster(
                        RouterGrids.EAST_A, url, Set.of("demo-model"), Optional.empty(), OptionalInt.empty(), false)));
    }

    private static PromptKeys prompt() {
        return RouterGrids.prompt("demo-model", 1, 4);
    }

    private void reload(URI url) {
        router.reconfigure(grid(url), PrefixAffinitySettings.defaults(), TagKeyRing.none());
    }

    private BackendCluster routed() {
        Route route = router.route(prompt());
        assertThat(route).as("the cluster admits").isInstanceOf(Route.Forward.class);
        return ((Route.Forward) route).decision().cluster();
    }

    private void failThrice(BackendCluster cluster) {
        for (int i = 0; i < OutlierEjector.CONSECUTIVE_CONNECT_FAILURES; i++) {
            router.connectFailed(cluster);
        }
    }

    @Test
    void ejectedAtItsOldUrl_movedByAReload_admittedAtOnce() {
        failThrice(routed());
        assertThat(router.route(prompt())).isInstanceOf(Route.NoneAdmitted.class);

        reload(FIXED);

        assertThat(routed().url()).isEqualTo(FIXED);
    }

    @Test
    void failuresOfRequestsStillInFlightToTheOldUrl_countNothingAgainstTheNewOne() {
        BackendCluster inFlight = routed();

        reload(FIXED);
        failThrice(inFlight);

        assertThat(routed().url()).isEqualTo(FIXED);
    }

    @Test
    void reloadThatKeepsTheUrl_keepsTheEjection() {
        failThrice(routed());

        reload(DEAD);

        assertThat(router.route(prompt())).isInstanceOf(Route.NoneAdmitted.class);
    }
}
