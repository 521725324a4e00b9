package grid.gateway.routing;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.EngineSample;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.LoadOrder;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.ScriptedRandom;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.LongStream;

/**
 * Test fixture for the router tests: clusters east-a and east-b of the local site east and west-a of site west,
 * prompts of consecutive block keys, and a listener that records the router's decisions as text.
 */
final class RouterGrids {
    static final ClusterId EAST_A = id("east", "east-a");
    static final ClusterId EAST_B = id("east", "east-b");
    static final ClusterId WEST_A = id("west", "west-a");

    private RouterGrids() {}

    static ClusterId id(String site, String name) {
        return new ClusterId(new SiteName(site), name);
    }

    /** A cluster at {@code http://127.0.0.1:1/<name>} (unmeasured) serving {@code models}. */
    static BackendCluster cluster(ClusterId id, boolean draining, Set<String> models) {
        return new BackendCluster(
                id,
                URI.create("http://127.0.0.1:1/" + id.name()),
                models,
                Optional.empty(),
                OptionalInt.empty(),
                draining);
    }

    /** East-a, east-b and west-a, none draining, each serving {@code model} alone. */
    static Grid threeClusters(String model) {
        List<BackendCluster> clusters = new ArrayList<>();
        for (ClusterId id : List.of(EAST_A, EAST_B, WEST_A)) {
            clusters.add(cluster(id, false, Set.of(model)));
        }
        return Grid.of(new SiteName("east"), clusters);
    }

    /**
     * A router over {@link #threeClusters} serving "m", never exploring, with a 2 s window, {@code order} and no
     * sent-since-scrape count, counting its sends in {@code backlog}; nothing scraped yet.
     */
    static SiteRouter router(
            ManualClock clock, PrefixAffinitySettings settings, LoadOrder order, PrefillBacklog backlog) {
        RoutingParts parts = new RoutingParts(
                new PrefixMemory(settings, clock, 42),
                new QueueDepthWindow(Duration.ofSeconds(2)),
                new OutlierEjector(),
                ScriptedRandom.neverExploring(),
                clock,
                RoutingListener.NONE,
                backlog);
        return new SiteRouter(threeClusters("m"), settings, TagKeyRing.none(), parts, new LoadRules(false, order));
    }

    /** {@link #router(ManualClock, PrefixAffinitySettings, LoadOrder, PrefillBacklog)} with a backlog of its own. */
    static SiteRouter router(ManualClock clock, PrefixAffinitySettings settings, LoadOrder order) {
        return router(clock, settings, order, new PrefillBacklog());
    }

    /** One scrape of each of the three clusters, every queue empty. */
    static void idle(SiteRouter router, ManualClock clock) {
        for (ClusterId id : List.of(EAST_A, EAST_B, WEST_A)) {
            router.scraped(id, EngineSample.queueOnly(clock.nanoTime(), 0));
        }
    }

    /** A prompt for {@code model} whose {@code blocks} block keys are {@code first}, {@code first + 1}, ... */
    static PromptKeys prompt(String model, long first, int blocks) {
        return new PromptKeys(
                Optional.of(model),
                Optional.empty(),
                BlockKeys.copyOf(LongStream.range(first, first + blocks).toArray(), blocks),
                Optional.empty());
    }

    /**
     * Twenty scrapes of an engine with {@code slots} slots prefilling {@code prefillRate} uncached tokens a second
     * (4 requests a scrape of 3,000 prompt tokens, 1,000 of them cached, each running 6 s).
     */
    static void calibrate(SiteRouter router, ManualClock clock, ClusterId cluster, int slots, double prefillRate) {
        for (int i = 0; i <= 20; i++) {
            router.scraped(
                    cluster,
                    new EngineSample(
                            clock.nanoTime(),
                            OptionalDouble.of(0),
                            OptionalDouble.of(slots),
                            OptionalDouble.of(i * 4 * 3_000.0),
                            OptionalDouble.of(i * 4 * 1_000.0),
                            OptionalDouble.of(i * 4 * 2_000.0 / prefillRate),
                            OptionalDouble.of(i * 4 * 6.0),
                            OptionalDouble.of(i * 4.0),
                            OptionalDouble.of(16 * 10_000.0)));
        }
    }

    /** Records each affinity decision as {@code "<outcome> <cluster>"} and each pin as {@code "pinned <outcome>"}. */
    static final class RecordingListener implements RoutingListener {
        final List<String> events = new ArrayList<>();

        @Override
        public void affinityDecided(AffinityOutcome outcome, ClusterId cluster, int run) {
            events.add(outcome.label() + " " + cluster.name());
        }

        @Override
        public void pinned(PinnedOutcome outcome) {
            events.add("pinned " + outcome.label());
        }
    }
}
