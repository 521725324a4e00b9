package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.load.QueueSample;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.ScriptedRandom;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The router end to end, without a network: the seed's sentences that need more than one component. */
class SiteRouterTest {
    private static final String KEY_FILE = "tag-key-0123456789abcdef\n";

    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 42);
    private final RouterGrids.RecordingListener listener = new RouterGrids.RecordingListener();
    private final List<String> events = listener.events;
    private final SiteRouter router = new SiteRouter(
            grid(false),
            PrefixAffinitySettings.defaults(),
            TagKeyRing.parse(KEY_FILE),
            new RoutingParts(memory, window, new OutlierEjector(), ScriptedRandom.neverExploring(), clock, listener));

    private static Grid grid(boolean eastADraining) {
        return Grid.of(
                new SiteName("east"),
                List.of(
                        RouterGrids.cluster(RouterGrids.EAST_A, eastADraining, Set.of("demo-model")),
                        RouterGrids.cluster(RouterGrids.EAST_B, false, Set.of("demo-model")),
                        RouterGrids.cluster(RouterGrids.WEST_A, false, Set.of("demo-model"))));
    }

    private void queue(String site, String name, double depth) {
        window.record(new ClusterId(new SiteName(site), name), new QueueSample(clock.nanoTime(), depth));
    }

    private static PromptKeys prompt(int blocks) {
        return RouterGrids.prompt("demo-model", 1, blocks);
    }

    private static RouteDecision forward(Route route) {
        return ((Route.Forward) route).decision();
    }

    private static String name(Route route) {
        return forward(route).cluster().id().name();
    }

    private BackendCluster cluster(String name) {
        return router.grid().clusters().stream()
                .filter(c -> c.id().name().equals(name))
                .findFirst()
                .orElseThrow();
    }

    // --- What it remembers.

    @Test
    void keysMatter_twoClustersServeTheModel_evenWhenOneDrains_oneOrNoneDoesNot() {
        assertThat(router.keysMatter("demo-model")).isTrue();
        assertThat(router.keysMatter("other-model")).isFalse();

        router.reconfigure(
                Grid.of(
                        new SiteName("east"),
                        List.of(
                                RouterGrids.cluster(RouterGrids.EAST_A, true, Set.of("demo-model")),
                                RouterGrids.cluster(RouterGrids.EAST_B, false, Set.of("demo-model")))),
                PrefixAffinitySettings.defaults(),
                TagKeyRing.parse(KEY_FILE));
        assertThat(router.keysMatter("demo-model")).isTrue();

        router.reconfigure(
                Grid.of(
                        new SiteName("east"),
                        List.of(RouterGrids.cluster(RouterGrids.EAST_A, false, Set.of("demo-model")))),
                PrefixAffinitySettings.defaults(),
                TagKeyRing.parse(KEY_FILE));
        assertThat(router.keysMatter("demo-model")).isFalse();
    }

    @Test
    void route_burstBeforeFirstAnswer_spreadsByLoad_thenSticks() {
        queue("east", "east-a", 2);
        queue("east", "east-b", 1);
        queue("west", "west-a", 3);
        // "A burst behind a new prompt spreads by load until the first answer."
        RouteDecision first = forward(router.route(prompt(40)));
        assertThat(forward(router.route(prompt(40))).outcome()).contains(AffinityOutcome.MISS);
        assertThat(first.cluster().id().name()).isEqualTo("east-b");
        router.answered(first, 200);
        queue("east", "east-b", 1.1); // a little busier now, but within the 40-block match's worth
        RouteDecision after = forward(router.route(prompt(40)));
        assertThat(after.cluster().id().name()).isEqualTo("east-b");
        assertThat(after.outcome()).contains(AffinityOutcome.HIT);
        assertThat(events).containsExactly("miss east-b", "miss east-b", "hit east-b");
    }

    @Test
    void answered_429or5xx_dropsKeys_otherErrorsTeachNothing() {
        RouteDecision decision = forward(router.route(prompt(40)));
        ClusterId id = decision.cluster().id();
        router.answered(decision, 200);
        assertThat(memory.run(id, prompt(40).keys())).isEqualTo(40);
        router.answered(decision, 400);
        assertThat(memory.run(id, prompt(40).keys())).isEqualTo(40);
        router.answered(decision, 503);
        assertThat(memory.run(id, prompt(40).keys())).isZero();
        router.answered(decision, 200);
        router.answered(decision, 429);
        assertThat(memory.run(id, prompt(40).keys())).isZero();
    }

    @Test
    void answered_statusBoundaries_2xxConfirms_429And5xxDrop_everyOtherTeachesNothing() {
        RouteDecision decision = forward(router.route(prompt(40)));
        ClusterId id = decision.cluster().id();
        BlockKeys keys = prompt(40).keys();
        int[] teachNothing = {100, 103, 199, 300, 304, 399, 400, 404, 428, 430, 499, 600, 999};
        for (int status : teachNothing) {
            router.answered(decision, status);
            assertThat(memory.run(id, keys)).as("%d confirms nothing", status).isZero();
        }
        router.answered(decision, 299);
        assertThat(memory.run(id, keys)).isEqualTo(40);
        for (int status : teachNothing) {
            router.answered(decision, status);
            assertThat(memory.run(id, keys)).as("%d drops nothing", status).isEqualTo(40);
        }
        for (int status : new int[] {429, 500, 599}) {
            router.answered(decision, 200);
            router.answered(decision, status);
            assertThat(memory.run(id, keys)).as("%d drops", status).isZero();
        }
    }

    @Test
    void route_identicalShortPromptsFromTheKeyer_spreadByLoad() {
        PromptKeys shortPrompt = new PromptKeyer()
                .key(
                        ApiDialect.CHAT_COMPLETIONS,
                        "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                                .getBytes(StandardCharsets.UTF_8));
        queue("east", "east-a", 0);
        queue("east", "east-b", 5);
        queue("west", "west-a", 5);
        router.answered(forward(router.route(shortPrompt)), 200);
        queue("east", "east-a", 9); // east-a now holds the prompt but is the busiest
        assertThat(name(router.route(shortPrompt))).isNotEqualTo("east-a");
    }

    // --- How it chooses: a site that admits no new request is never a candidate, so it is never sticky.

    @Test
    void route_stickyClusterStopsAdmitting_neverSticky() {
        RouteDecision decision = forward(router.route(prompt(40)));
        router.answered(decision, 200);
        assertThat(name(router.route(prompt(40))))
                .isEqualTo(decision.cluster().id().name());
        router.reconfigure(grid(true), PrefixAffinitySettings.defaults(), TagKeyRing.parse(KEY_FILE));
        assertThat(decision.cluster().id().name()).isEqualTo("east-a");
        assertThat(name(router.route(prompt(40)))).isNotEqualTo("east-a");
    }

    @Test
    void route_unknownModel_andNothingAdmitting() {
        PromptKeys other = new PromptKeys(
                Optional.of("other"),
                Optional.empty(),
                BlockKeys.none(),
                Optional.of(grid.gateway.routing.keyer.NoKeysReason.EMPTY_PROMPT));
        assertThat(router.route(other)).isEqualTo(new Route.UnknownModel("other"));
        router.reconfigure(
                Grid.of(
                        new SiteName("east"),
                        List.of(RouterGrids.cluster(RouterGrids.EAST_A, true, Set.of("demo-model")))),
                PrefixAffinitySettings.defaults(),
                TagKeyRing.none());
        assertThat(router.route(prompt(4))).isInstanceOf(Route.NoneAdmitted.class);
    }

    @Test
    void route_retryAfterConnectFailure_leavesOutTriedClusterAndCountsOnce() {
        RouteDecision first = forward(router.route(prompt(4)));
        router.connectFailed(first.cluster());
        RouteDecision retry =
                forward(router.route(prompt(4), Set.of(first.cluster().id())));
        assertThat(retry.cluster()).isNotEqualTo(first.cluster());
        assertThat(events).hasSize(1);
    }

    // --- Stored responses and conversations.

    @Test
    void tag_idsLeaveTaggedWithSiteAndCluster() {
        // Known answer computed with openssl (see TagKeyRingTest): east.1ef772aa under the key above.
        assertThat(router.tag("resp_abc123", cluster("east-a")))
                .isEqualTo("resp_east.1ef772aa.315e3ad6b9906efa.abc123");
        assertThat(router.tag("conv_xyz", cluster("east-a"))).startsWith("conv_east.1ef772aa.");
    }

    @Test
    void pin_taggedId_goesOnlyToThatClusterAndIsNotHashed() {
        String tagged = router.tag("resp_abc123", cluster("west-a"));
        queue("west", "west-a", 50); // the busiest cluster: load does not matter to a pinned request
        assertThat(pinAll(List.of(tagged))).isEqualTo(new PinResult.Pinned(cluster("west-a")));
        router.answered(RouteDecision.unkeyed(cluster("west-a")), 200);
        assertThat(memory.entries(cluster("west-a").id())).isZero();
        assertThat(events).containsExactly("pinned routed");
    }

    @Test
    void pin_clusterThatLeftTheGrid_notFound() {
        String tagged = router.tag("resp_abc123", cluster("west-a"));
        router.reconfigure(
                Grid.of(
                        new SiteName("east"),
                        List.of(RouterGrids.cluster(RouterGrids.EAST_A, false, Set.of("demo-model")))),
                PrefixAffinitySettings.defaults(),
                TagKeyRing.parse(KEY_FILE));
        assertThat(pinAll(List.of(tagged))).isEqualTo(new PinResult.NotFound(PinResult.NotFoundReason.CLUSTER_GONE));
        assertThat(events).containsExactly("pinned not_found");
    }

    @Test
    void pin_clusterThatAdmitsNothing_unavailable() {
        String tagged = router.tag("resp_abc123", cluster("east-a"));
        router.reconfigure(grid(true), PrefixAffinitySettings.defaults(), TagKeyRing.parse(KEY_FILE));
        assertThat(pinAll(List.of(tagged))).isInstanceOf(PinResult.Unavailable.class);
        assertThat(events).containsExactly("pinned unavailable");
    }

    @Test
    void pin_withKey_badMacNotFound_withoutKey_anyWellFormedTagAccepted() {
        String forged =
                "resp_west.%s.0000000000000000.abc".formatted(grid.gateway.routing.tag.ClusterDigest.of("west-a"));
        assertThat(pinAll(List.of(forged))).isEqualTo(new PinResult.NotFound(PinResult.NotFoundReason.BAD_MAC));
        router.reconfigure(grid(false), PrefixAffinitySettings.defaults(), TagKeyRing.none());
        assertThat(pinAll(List.of(forged))).isEqualTo(new PinResult.Pinned(cluster("west-a")));
        assertThat(router.tag("resp_abc", cluster("west-a"))).contains("..");
    }

    @Test
    void pin_malformedOrUntagged_notFound_twoClusters_conflict() {
        assertThat(pinAll(List.of("resp_plainEngineId")))
                .isEqualTo(new PinResult.NotFound(PinResult.NotFoundReason.UNTAGGED));
        assertThat(pinAll(List.of("resp_EAST.x.y.z")))
                .isEqualTo(new PinResult.NotFound(PinResult.NotFoundReason.MALFORMED));
        String a = router.tag("resp_a", cluster("east-a"));
        String b = router.tag("conv_b", cluster("west-a"));
        assertThat(pinAll(List.of(a, b))).isInstanceOf(PinResult.Conflict.class);
        assertThat(pinAll(List.of(a, router.tag("conv_c", cluster("east-a")))))
                .isEqualTo(new PinResult.Pinned(cluster("east-a")));
    }

    /** Pins {@code ids}, each where its own prefix's kind is expected. */
    private PinResult pinAll(List<String> ids) {
        return router.pin(ids.stream()
                .map(id -> new NamedId(IdKind.of(id).orElseThrow(), id))
                .toList());
    }

    @Test
    void pin_tagOfTheOtherKindThanItsPlace_notFoundWrongKind_counted() {
        String resp = router.tag("resp_a", cluster("east-a"));
        String conv = router.tag("conv_b", cluster("east-a"));
        PinResult wrongKind = new PinResult.NotFound(PinResult.NotFoundReason.WRONG_KIND);

        assertThat(router.pin(List.of(new NamedId(IdKind.CONV, resp)))).isEqualTo(wrongKind);
        assertThat(router.pin(List.of(new NamedId(IdKind.RESP, conv)))).isEqualTo(wrongKind);
        assertThat(router.pin(List.of(new NamedId(IdKind.RESP, resp), new NamedId(IdKind.RESP, conv))))
                .isEqualTo(wrongKind);
        assertThat(router.pin(List.of(new NamedId(IdKind.RESP, resp), new NamedId(IdKind.CONV, conv))))
                .isEqualTo(new PinResult.Pinned(cluster("east-a")));
    }

    @Test
    void pin_twoClustersAndAnUnknownId_notFound_inEveryOrder() {
        String a = router.tag("resp_a", cluster("east-a"));
        String b = router.tag("conv_b", cluster("west-a"));
        String unknown = "resp_plainEngineId";
        PinResult notFound = new PinResult.NotFound(PinResult.NotFoundReason.UNTAGGED);

        assertThat(pinAll(List.of(unknown, a, b))).isEqualTo(notFound);
        assertThat(pinAll(List.of(a, unknown, b))).isEqualTo(notFound);
        assertThat(pinAll(List.of(a, b, unknown))).isEqualTo(notFound);
    }

    @Test
    void newConversation_staysOnLocalSiteWhileItAdmits() {
        queue("east", "east-a", 9);
        queue("east", "east-b", 8);
        queue("west", "west-a", 0);
        assertThat(name(router.newConversation(Set.of()))).isEqualTo("east-b");
        // Tried again after east-b refused the connection: east-a, the local site's other cluster, not west-a.
        assertThat(name(router.newConversation(Set.of(cluster("east-b").id())))).isEqualTo("east-a");
        router.reconfigure(
                Grid.of(
                        new SiteName("east"),
                        List.of(
                                RouterGrids.cluster(RouterGrids.EAST_A, true, Set.of("demo-model")),
                                RouterGrids.cluster(RouterGrids.WEST_A, false, Set.of("demo-model")))),
                PrefixAffinitySettings.defaults(),
                TagKeyRing.none());
        assertThat(name(router.newConversation(Set.of()))).isEqualTo("west-a");
    }
}
