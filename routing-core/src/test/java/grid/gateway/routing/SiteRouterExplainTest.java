package grid.gateway.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.load.QueueSample;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.Decision;
import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SiteRouter#explain}: each outcome with its reasons, the same answer {@link SiteRouter#route} then gives, and
 * nothing changed by asking: no draw from the random source, no event, no sent count, no memory entry.
 */
class SiteRouterExplainTest {
    private static final String KEY_FILE = "tag-key-0123456789abcdef\n";

    private final ManualClock clock = new ManualClock();
    private final QueueDepthWindow window = new QueueDepthWindow(Duration.ofSeconds(10));
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 42);
    private final CountingRandom random = new CountingRandom();
    private final RouterGrids.RecordingListener listener = new RouterGrids.RecordingListener();
    private final List<String> events = listener.events;
    private final SiteRouter router = new SiteRouter(
            grid(false),
            PrefixAffinitySettings.defaults(),
            TagKeyRing.parse(KEY_FILE),
            new RoutingParts(memory, window, new OutlierEjector(), random, clock, listener));
    private boolean routesAfterward = true;

    /** A random source that never explores and counts its draws. */
    private static final class CountingRandom implements RandomGenerator {
        private int draws;

        @Override
        public long nextLong() {
            draws++;
            return 0;
        }

        @Override
        public double nextDouble() {
            draws++;
            return 0.5;
        }
    }

    private static Grid grid(boolean allDraining) {
        return Grid.of(
                new SiteName("east"),
                List.of(
                        RouterGrids.cluster(RouterGrids.EAST_A, allDraining, Set.of("demo-model")),
                        RouterGrids.cluster(RouterGrids.EAST_B, allDraining, Set.of("demo-model")),
                        RouterGrids.cluster(RouterGrids.WEST_A, allDraining, Set.of("demo-model", "solo-model"))));
    }

    private void queue(String site, String name, double depth) {
        window.record(RouterGrids.id(site, name), new QueueSample(clock.nanoTime(), depth));
    }

    private static PromptKeys prompt(String model, int blocks) {
        return RouterGrids.prompt(model, 1, blocks);
    }

    private static PromptKeys unkeyed() {
        return new PromptKeys(
                Optional.of("demo-model"), Optional.empty(), BlockKeys.none(), Optional.of(NoKeysReason.TOKEN_PROMPT));
    }

    private PromptKeys asked;
    private Explanation explained;

    /** Explains {@code keys}, checking that asking changed nothing the router reads or counts. */
    private Explanation explain(PromptKeys keys) {
        int draws = random.draws;
        int entries = memory.clusters().stream().mapToInt(memory::entries).sum();
        int sent = router.grid().clusters().stream()
                .mapToInt(c -> router.inFlightSinceScrape(c.id()))
                .sum();
        asked = keys;
        explained = router.explain(keys);
        assertThat(random.draws).as("draws").isEqualTo(draws);
        assertThat(events).as("events").isEmpty();
        assertThat(memory.clusters().stream().mapToInt(memory::entries).sum()).isEqualTo(entries);
        assertThat(router.grid().clusters().stream()
                        .mapToInt(c -> router.inFlightSinceScrape(c.id()))
                        .sum())
                .isEqualTo(sent);
        return explained;
    }

    /** The route the router then takes is the one explained (nothing explores: the source draws 0.5). */
    @AfterEach
    void routeAgrees() {
        if (explained == null || !routesAfterward) {
            return;
        }
        Route route = router.route(asked);
        switch (explained.route()) {
            case Route.Forward f -> {
                RouteDecision d = ((Route.Forward) route).decision();
                assertThat(d.cluster()).isEqualTo(f.decision().cluster());
                assertThat(d.outcome()).isEqualTo(f.decision().outcome());
                assertThat(d.run()).isEqualTo(f.decision().run());
            }
            case Route.UnknownModel u -> assertThat(route).isEqualTo(u);
            case Route.NoneAdmitted n -> assertThat(route).isEqualTo(n);
        }
    }

    private static Decision decision(Explanation e) {
        return e.decision().orElseThrow();
    }

    private static String chosen(Explanation e) {
        return ((Route.Forward) e.route()).decision().cluster().id().name();
    }

    @Test
    void clusters_showHowLongEachKeepsAPrefix_onceItsEngineSizedMemoryIsFull() {
        PrefixAffinitySettings engineSized = PrefixAffinitySettings.defaults()
                .with(new PrefixAffinitySettings.Calibrated(true, false, false), false);
        memory.reconfigure(memory.clusters(), engineSized);
        memory.measuredCapacity(RouterGrids.id("east", "east-a"), 4);
        memory.confirm(RouterGrids.id("east", "east-a"), prompt("demo-model", 4).keys());
        clock.advanceSeconds(30);

        Explanation e = explain(prompt("demo-model", 40));

        assertThat(e.clusters())
                .extracting(Explanation.ClusterCheck::retentionSeconds)
                .containsExactly(OptionalDouble.of(30), OptionalDouble.empty(), OptionalDouble.empty());
    }

    @Test
    void hit_namesTheStickySet_andTheGateThatKeptIt() {
        memory.confirm(
                RouterGrids.id("east", "east-b"), prompt("demo-model", 40).keys());
        queue("east", "east-a", 1);
        queue("east", "east-b", 1.1);
        queue("west", "west-a", 3);
        Explanation e = explain(prompt("demo-model", 40));
        assertThat(chosen(e)).isEqualTo("east-b");
        assertThat(decision(e).selection().outcome()).contains(AffinityOutcome.HIT);
        assertThat(decision(e).stickySet()).extracting(c -> c.id().name()).containsExactly("east-b");
        Decision.Gate gate = decision(e).gate().orElseThrow();
        assertThat(gate.sticky().id().name()).isEqualTo("east-b");
        assertThat(gate.other().id().name()).isEqualTo("east-a");
        // 40 blocks × 64 tokens / 10000 tokens/s / 2 s = 0.128 queued requests against a gap of 0.1.
        assertThat(gate.weighing().worth()).isCloseTo(0.128, within(1e-9));
        assertThat(gate.weighing().gap().getAsDouble()).isCloseTo(0.1, within(1e-9));
        assertThat(gate.weighing().inSeconds()).isFalse();
        assertThat(gate.weighing().reopens()).isFalse();
        assertThat(e.clusters()).extracting(Explanation.ClusterCheck::run).containsExactly(0, 40, 0);
    }

    @Test
    void load_showsTheArithmeticThatReopenedTheStickySet() {
        memory.confirm(
                RouterGrids.id("east", "east-b"), prompt("demo-model", 40).keys());
        queue("east", "east-a", 0);
        queue("east", "east-b", 5);
        queue("west", "west-a", 3);
        Explanation e = explain(prompt("demo-model", 40));
        assertThat(chosen(e)).isEqualTo("east-a");
        assertThat(decision(e).selection().outcome()).contains(AffinityOutcome.LOAD);
        Decision.Gate gate = decision(e).gate().orElseThrow();
        assertThat(gate.run()).isEqualTo(40);
        assertThat(gate.weighing().gap().getAsDouble()).isEqualTo(5.0);
        assertThat(gate.weighing().worth()).isCloseTo(0.128, within(1e-9));
        assertThat(gate.weighing().reopens()).isTrue();
        assertThat(decision(e).ordered())
                .extracting(c -> c.cluster().id().name())
                .containsExactly("east-a", "west-a", "east-b");
        assertThat(decision(e).runs()).containsExactly(0, 0, 40);
    }

    @Test
    void miss_whenNoRunIsSticky_goesFirstByLoad() {
        memory.confirm(RouterGrids.id("east", "east-b"), prompt("demo-model", 3).keys()); // under 4 blocks never counts
        queue("east", "east-a", 2);
        queue("east", "east-b", 1);
        queue("west", "west-a", 0);
        Explanation e = explain(prompt("demo-model", 40));
        assertThat(chosen(e)).isEqualTo("west-a");
        assertThat(decision(e).selection().outcome()).contains(AffinityOutcome.MISS);
        assertThat(decision(e).longestRun()).isEqualTo(3);
        assertThat(decision(e).sticky()).isFalse();
        assertThat(decision(e).stickySet()).isEmpty();
        assertThat(decision(e).gate()).isEmpty();
    }

    @Test
    void unkeyed_carriesTheNoKeysReason_andLooksUpNoRun() {
        queue("east", "east-a", 2);
        queue("east", "east-b", 0);
        queue("west", "west-a", 1);
        Explanation e = explain(unkeyed());
        assertThat(e.keys().noKeysReason()).contains(NoKeysReason.TOKEN_PROMPT);
        assertThat(chosen(e)).isEqualTo("east-b");
        assertThat(decision(e).selection().outcome()).contains(AffinityOutcome.UNKEYED);
        assertThat(decision(e).runs()).isEmpty();
    }

    @Test
    void oneCandidate_hasNoOutcome() {
        memory.confirm(RouterGrids.id("west", "west-a"), prompt("solo-model", 8).keys());
        Explanation e = explain(prompt("solo-model", 10));
        assertThat(chosen(e)).isEqualTo("west-a");
        assertThat(decision(e).selection().outcome()).isEmpty();
        assertThat(decision(e).runs()).containsExactly(8);
        assertThat(e.clusters()).extracting(c -> c.cluster().id().name()).containsExactly("west-a");
    }

    @Test
    void noneAdmitted_namesEachClustersRefusal() {
        router.reconfigure(grid(true), PrefixAffinitySettings.defaults(), TagKeyRing.parse(KEY_FILE));
        Explanation e = explain(prompt("demo-model", 10));
        assertThat(e.route()).isInstanceOf(Route.NoneAdmitted.class);
        assertThat(e.decision()).isEmpty();
        assertThat(e.clusters())
                .extracting(Explanation.ClusterCheck::refusal)
                .containsOnly(Optional.of(Admission.Refusal.DRAINING));
    }

    @Test
    void noModel_isAnUnknownModel() {
        Explanation e = explain(prompt("nobody-serves-this", 10));
        assertThat(e.route()).isEqualTo(new Route.UnknownModel("nobody-serves-this"));
        assertThat(e.clusters()).isEmpty();
    }

    @Test
    void ties_keepConfigOrder_withoutDrawing() {
        Explanation e = explain(prompt("demo-model", 40));
        assertThat(decision(e).ordered())
                .extracting(c -> c.cluster().id().name())
                .containsExactly("east-a", "east-b", "west-a");
        assertThat(chosen(e)).isEqualTo("east-a");
    }

    @Test
    void explainPin_resolvesLikePin_butCountsNothing() {
        routesAfterward = false;
        BackendCluster westA = router.grid().clusters().get(2);
        String tagged = router.tag("resp_abc123", westA);
        assertThat(router.explainPin(List.of(new NamedId(IdKind.RESP, tagged)))).isEqualTo(new PinResult.Pinned(westA));
        assertThat(router.explainPin(List.of(new NamedId(IdKind.RESP, "resp_untagged"))))
                .isInstanceOf(PinResult.NotFound.class);
        assertThat(events).isEmpty();
        assertThat(router.inFlightSinceScrape(westA.id())).isZero();
        Route.Forward explainedConversation = (Route.Forward) router.explainNewConversation();
        Route.Forward routedConversation = (Route.Forward) router.newConversation(Set.of());
        assertThat(explainedConversation.decision().cluster())
                .isEqualTo(routedConversation.decision().cluster());
        assertThat(explainedConversation.candidates()).isEqualTo(routedConversation.candidates());
    }
}
