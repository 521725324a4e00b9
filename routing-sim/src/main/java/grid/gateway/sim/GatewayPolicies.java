package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.Route;
import grid.gateway.routing.RouteDecision;
import grid.gateway.routing.RoutingListener;
import grid.gateway.routing.RoutingParts;
import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.prefix.UsageReport;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.select.CandidateSelector;
import grid.gateway.routing.select.Exploration;
import grid.gateway.routing.tag.TagKeyRing;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The policies built from the real routing core, fed as the gateway feeds it: a {@link QueueDepthWindow} of
 * {@code load.window_secs} (default 10) receives each cluster's scraped waiting line every {@code poll_interval_ms}
 * (default 1000; the simulator's scrape events), on the simulated clock.
 *
 * <ul>
 *   <li>{@code grid_site_route}: {@link SiteRouter#route} on the request's real {@code PromptKeys}, and
 *       {@link SiteRouter#answered} with 200 at the first token, when a streamed answer's headers arrive, or with
 *       the 429 or 503 of an error answer ({@link FailedAnswers}); {@link SiteRouter#firstToken} at the same moment
 *       (it re-anchors the prefill backlog of {@code load.order_by: expected_wait}).
 *   <li>least-queued: {@link CandidateSelector#orderByLoad} over the same candidates, first one.
 * </ul>
 *
 * <p>Stateless itself; the policies it makes are not thread-safe (one per run).
 */
final class GatewayPolicies {
    /** Tokens the gateway predicts a matched 256-byte block saves (four bytes a token). */
    static final int PREDICTED_TOKENS_PER_BLOCK = 64;

    private GatewayPolicies() {}

    /** A gateway-fed policy as one replica, or {@code replicas} of them behind a random spread. */
    static Policy replicated(int replicas, SplittableRandom random, Function<SplittableRandom, Policy> replica) {
        if (replicas == 1) {
            return replica.apply(random);
        }
        SplittableRandom spread = random.split();
        List<Policy> all = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            all.add(replica.apply(random.split()));
        }
        return new ReplicaSpread(all, spread);
    }

    static Policy gridSiteRoute(SimGrid grid, GatewayTuning tuning, RandomGenerator random, SimClock clock) {
        return gridSiteRoute(grid, tuning, random, clock, Sharing.NONE);
    }

    /**
     * How replicas share what they learn.
     *
     * @param oneMemory every replica remembers in this one memory (the ideal)
     * @param oneBacklog with it, every replica counts its sends in this one prefill backlog, so that under
     *     {@code expected_wait} the ideal sees the whole site's prompts as the shared stream's backlog does
     * @param stream each replica keeps its own memory and shares through this stream (the design of docs/prefix-sharing.md)
     */
    record Sharing(
            Optional<PrefixMemory> oneMemory, Optional<PrefillBacklog> oneBacklog, Optional<SharedStream> stream) {
        static final Sharing NONE = new Sharing(Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** As above, the replicas sharing as {@code sharing} says. */
    static Policy gridSiteRoute(
            SimGrid simGrid, GatewayTuning tuning, RandomGenerator random, SimClock clock, Sharing sharing) {
        Grid grid = simGrid.routingGrid();
        EngineModel engines = simGrid.engines();
        long salt = random.nextLong();
        PrefixMemory memory = sharing.oneMemory().orElseGet(() -> new PrefixMemory(tuning.settings(), clock, salt));
        Optional<SharedStream> stream = sharing.stream();
        SiteRouter router = router(grid, tuning, memory, random, clock, sharing);
        Map<ClusterId, Integer> index = indexOf(grid);
        int me = stream.map(s -> s.join(memory, tuning.sharedBacklog() ? Optional.of(router) : Optional.empty()))
                .orElse(-1);
        MissPlacement placement = new MissPlacement(tuning, grid, clock);
        return new Policy() {
            @Override
            public String name() {
                return PolicyKind.GRID_SITE_ROUTE.label();
            }

            @Override
            public void choose(Flight flight, List<SimCluster> clusters) {
                stream.ifPresent(s -> s.deliver(me));
                if (!(router.route(flight.turn.keys()) instanceof Route.Forward forward)) {
                    throw new IllegalStateException("every cluster serves the model and admits");
                }
                RouteDecision decision = placement.place(forward.decision(), flight, clusters);
                flight.cluster = requireNonNull(index.get(decision.cluster().id()), "a cluster of the grid");
                flight.outcome = decision.outcome();
                flight.decision = decision;
                flight.predictedCached = (long) decision.run() * PREDICTED_TOKENS_PER_BLOCK;
            }

            @Override
            public void scraped(int cluster, EngineSeries series) {
                router.scraped(grid.clusters().get(cluster).id(), engines.sample(series));
            }

            @Override
            public void answered(Flight flight, int status) {
                if (heard(status, tuning) && flight.decision instanceof RouteDecision decision) {
                    learn(router, decision, status, engines.usage(flight.cachedTokens));
                }
            }

            @Override
            public void finished(Flight flight) {
                if (flight.decision instanceof RouteDecision decision) {
                    router.ended(decision);
                }
            }
        };
    }

    /** The router of one replica over {@code memory}, its backlog its own or the ideal's one. */
    // The parts a replica's router is made of, besides those gridSiteRoute keeps for itself.
    @SuppressWarnings("checkstyle:parameternumber")
    private static SiteRouter router(
            Grid grid,
            GatewayTuning tuning,
            PrefixMemory memory,
            RandomGenerator random,
            SimClock clock,
            Sharing sharing) {
        RandomGenerator source = tuning.isOff(SimCause.EXPLORATION) ? neverExploring(random) : random;
        RoutingParts parts = new RoutingParts(
                memory,
                new QueueDepthWindow(tuning.window()),
                new OutlierEjector(),
                source,
                clock,
                RoutingListener.NONE,
                sharing.oneBacklog().orElseGet(PrefillBacklog::new));
        SiteRouter router = new SiteRouter(grid, tuning.settings(), TagKeyRing.none(), parts);
        router.reconfigure(grid, tuning.settings(), TagKeyRing.none(), tuning.loadRules());
        return router;
    }

    /** What the gateway does with an answer's status, and with a 2xx's first token and usage (as the engine writes it). */
    private static void learn(SiteRouter router, RouteDecision decision, int status, UsageReport usage) {
        router.answered(decision, status);
        if (status == 200) {
            router.firstToken(decision);
            router.usageReported(decision, usage);
        }
    }

    /** Whether the router hears an answer of {@code status}: not an error whose drop the simulation switches off. */
    private static boolean heard(int status, GatewayTuning tuning) {
        return status == 200
                || !(tuning.isOff(SimCause.DROP_ON_ERROR) || (status == 429 && tuning.isOff(SimCause.DROP_ON_429)));
    }

    /**
     * Least-queued on exactly the gateway's load signal: the real {@link SiteRouter}, configured by {@code tuning}
     * (the same window, sent-since-scrape counts, measured costs and batch occupancy), routing every request as if
     * it had no keys, so it takes the first candidate by load and never learns a prefix.
     */
    static Policy leastQueued(SimGrid simGrid, GatewayTuning tuning, RandomGenerator random, SimClock clock) {
        Grid grid = simGrid.routingGrid();
        EngineModel engines = simGrid.engines();
        PrefixAffinitySettings settings = tuning.settings();
        PrefixMemory memory = new PrefixMemory(settings, clock, random.nextLong());
        RoutingParts parts = new RoutingParts(
                memory,
                new QueueDepthWindow(tuning.window()),
                new OutlierEjector(),
                random,
                clock,
                RoutingListener.NONE);
        SiteRouter router = new SiteRouter(grid, settings, TagKeyRing.none(), parts);
        router.reconfigure(grid, settings, TagKeyRing.none(), tuning.loadRules());
        Map<ClusterId, Integer> index = indexOf(grid);
        return new Policy() {
            @Override
            public String name() {
                return PolicyKind.LEAST_QUEUED.label();
            }

            @Override
            public void choose(Flight flight, List<SimCluster> clusters) {
                PromptKeys keys = new PromptKeys(
                        flight.turn.keys().model(),
                        Optional.empty(),
                        BlockKeys.none(),
                        Optional.of(NoKeysReason.EMPTY_PROMPT));
                if (!(router.route(keys) instanceof Route.Forward forward)) {
                    throw new IllegalStateException("every cluster serves the model and admits");
                }
                flight.cluster =
                        requireNonNull(index.get(forward.decision().cluster().id()), "a cluster of the grid");
                flight.decision = forward.decision();
            }

            @Override
            public void scraped(int cluster, EngineSeries series) {
                router.scraped(grid.clusters().get(cluster).id(), engines.sample(series));
            }

            @Override
            public void finished(Flight flight) {
                if (flight.decision instanceof RouteDecision decision) {
                    router.ended(decision);
                }
            }
        };
    }

    /**
     * Where the requests the router leaves to load go when {@link SimCause#MISS_LOAD} or
     * {@link SimCause#MISS_PLACEMENT} is switched off: where the oracle would place them (without or with its cache
     * knowledge); the router learns the keys there.
     */
    private record MissPlacement(GatewayTuning tuning, Grid grid, SimClock clock) {
        RouteDecision place(RouteDecision decision, Flight flight, List<SimCluster> clusters) {
            boolean placed = tuning.isOff(SimCause.MISS_PLACEMENT) || tuning.isOff(SimCause.MISS_LOAD);
            if (!placed) {
                return decision;
            }
            RouteDecision chosen = decision;
            if (decision.outcome().equals(Optional.of(AffinityOutcome.MISS))) {
                boolean cacheAware = tuning.isOff(SimCause.MISS_PLACEMENT);
                int best = oracleChoice(flight.turn, clusters, clock.seconds(), cacheAware);
                chosen = new RouteDecision(grid.clusters().get(best), decision.outcome(), 0, decision.keys());
            }
            // The oracle's estimate of the prefill waiting in each line counts it.
            int at = grid.clusters().indexOf(chosen.cluster());
            flight.expectedUncached =
                    flight.turn.promptTokens() - clusters.get(at).cachedTokens(flight.turn);
            return chosen;
        }
    }

    /** {@code random}, except that its doubles never fall under the exploration share (the same draws otherwise). */
    static RandomGenerator neverExploring(RandomGenerator random) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return random.nextLong();
            }

            @Override
            public int nextInt() {
                return random.nextInt();
            }

            @Override
            public int nextInt(int bound) {
                return random.nextInt(bound);
            }

            @Override
            public double nextDouble() {
                return Exploration.EXPLORE_FRACTION + (1 - Exploration.EXPLORE_FRACTION) * random.nextDouble();
            }
        };
    }

    /**
     * The cluster with the least {@link SimCluster#predictedTtft} for {@code turn} (the first of equals), knowing the
     * caches or not.
     */
    static int oracleChoice(Turn turn, List<SimCluster> clusters, double now, boolean cacheAware) {
        int best = 0;
        double least = Double.POSITIVE_INFINITY;
        for (int i = 0; i < clusters.size(); i++) {
            double ttft = clusters.get(i).predictedTtft(turn, now, cacheAware);
            if (ttft < least) {
                least = ttft;
                best = i;
            }
        }
        return best;
    }

    private static Map<ClusterId, Integer> indexOf(Grid grid) {
        Map<ClusterId, Integer> index = new HashMap<>();
        for (int i = 0; i < grid.clusters().size(); i++) {
            index.put(grid.clusters().get(i).id(), i);
        }
        return index;
    }
}
