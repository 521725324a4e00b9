package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.AffinityOutcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * One run: a trace replayed through one policy against a fresh simulated grid at one offered load, as a
 * discrete-event simulation in simulated time (no wall clock; every random draw from the run's seed).
 *
 * <pre>
 *   session rate = load × capacity ÷ mean turns; session i starts at start_i ÷ rate
 *   arrive     policy picks a cluster → the cluster starts it (slot free) or lines it up
 *   first token  its prompt blocks enter that cluster's cache; the policy learns (grid_site_route confirms keys)
 *   done       its answer's blocks enter the cache; its slot goes on; the session's next turn is due after its pause
 *   scrape     every poll interval (default 1 s), each cluster's waiting line is recorded by the gateway-fed policies
 * </pre>
 *
 * <p>Not thread-safe; use once.
 */
public final class Simulation {
    private final Trace trace;
    private final Policy policy;
    private final List<SimCluster> clusters = new ArrayList<>();
    private final SimClock clock;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final double sessionRate;
    private final double warmUp;
    private final double lastStart;
    private final Tally tally;
    private final double pollSeconds;
    private final FailedAnswers failures;
    private long sequence;

    /** An arrival when flight is null, else that flight's first token or end. */
    private record Event(double at, long sequence, @Nullable Flight flight, boolean firstToken, int session, int turn)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event other) {
            int byTime = Double.compare(at, other.at);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }

    private Simulation(RunSpec spec, Policy policy, SimClock clock, double pollSeconds) {
        this.trace = spec.trace();
        this.failures = spec.failures();
        this.pollSeconds = pollSeconds;
        this.policy = policy;
        this.clock = clock;
        spec.grid().clusters().forEach(model -> clusters.add(new SimCluster(model)));
        this.sessionRate = spec.load() * spec.grid().capacity(trace) / trace.meanTurns();
        List<Session> sessions = trace.sessions();
        this.warmUp = sessions.get(sessions.size() / 10).start() / sessionRate;
        this.lastStart = sessions.getLast().start() / sessionRate;
        this.tally = new Tally(warmUp);
    }

    /**
     * What to run.
     *
     * @param grid the simulated grid
     * @param trace the requests
     * @param policy the policy
     * @param load the offered load, a fraction of {@link SimGrid#capacity}
     * @param seed the run's random seed (exploration, tie-breaks, random policy, replica spread)
     * @param replicas gateway replicas behind a random spread, for the gateway-fed policies (others ignore it)
     * @param failures the error answers
     */
    public record RunSpec(
            SimGrid grid,
            Trace trace,
            PolicyKind policy,
            double load,
            long seed,
            int replicas,
            FailedAnswers failures) {
        public RunSpec {
            requireNonNull(grid, "grid");
            requireNonNull(trace, "trace");
            requireNonNull(policy, "policy");
            requireNonNull(failures, "failures");
            if (!(load > 0)) {
                throw new IllegalArgumentException("load: " + load + " (expected: > 0)");
            }
            if (replicas < 1) {
                throw new IllegalArgumentException("replicas: " + replicas + " (expected: >= 1)");
            }
        }

        /** One replica, no error answers. */
        public RunSpec(SimGrid grid, Trace trace, PolicyKind policy, double load, long seed) {
            this(grid, trace, policy, load, seed, 1, FailedAnswers.none());
        }
    }

    /** Runs {@code spec} with the gateway's default configuration. */
    public static RunResult run(RunSpec spec) {
        return run(spec, GatewayTuning.defaults());
    }

    /** Runs {@code spec}; {@code tuning} configures the gateway-fed policies (ignored by the others). */
    public static RunResult run(RunSpec spec, GatewayTuning tuning) {
        SimClock clock = new SimClock();
        SplittableRandom random = new SplittableRandom(spec.seed());
        SimGrid grid = spec.grid();
        int replicas = spec.replicas();
        Policy policy = switch (spec.policy()) {
            case GRID_SITE_ROUTE -> {
                Optional<PrefixMemory> shared = tuning.sharedMemory()
                        ? Optional.of(new PrefixMemory(tuning.settings(), clock, random.nextLong()))
                        : Optional.empty();
                Optional<PrefillBacklog> oneBacklog = shared.map(m -> new PrefillBacklog());
                Optional<SharedStream> stream = tuning.streamSharing()
                        ? Optional.of(new SharedStream(tuning.streamLagSeconds(), clock))
                        : Optional.empty();
                yield GatewayPolicies.replicated(
                        replicas,
                        random,
                        r -> GatewayPolicies.gridSiteRoute(
                                grid, tuning, r, clock, new GatewayPolicies.Sharing(shared, oneBacklog, stream)));
            }
            case LEAST_QUEUED ->
                GatewayPolicies.replicated(replicas, random, r -> GatewayPolicies.leastQueued(grid, tuning, r, clock));
            case ROUND_ROBIN -> BlindPolicies.roundRobin();
            case RANDOM -> BlindPolicies.random(random);
            case ORACLE -> BlindPolicies.oracle(random, clock);
        };
        if (spec.policy() == PolicyKind.GRID_SITE_ROUTE && tuning.isOff(SimCause.UNKNOWN_SLOTS)) {
            policy = new SlotsTold(
                    policy,
                    spec.grid().clusters().stream().map(ClusterModel::slots).toList());
        }
        return new Simulation(spec, policy, clock, tuning.pollSeconds()).replay(spec);
    }

    private RunResult replay(RunSpec spec) {
        List<Session> sessions = trace.sessions();
        for (int i = 0; i < sessions.size(); i++) {
            schedule(new Event(sessions.get(i).start() / sessionRate, sequence++, null, false, i, 0));
        }
        double nextScrape = 0;
        while (!events.isEmpty()) {
            Event event = events.peek();
            if (nextScrape <= event.at()) {
                clock.advanceTo(nextScrape);
                scrape();
                nextScrape += pollSeconds;
                continue;
            }
            events.poll();
            clock.advanceTo(event.at());
            handle(event);
        }
        int replicas = spec.policy() == PolicyKind.GRID_SITE_ROUTE || spec.policy() == PolicyKind.LEAST_QUEUED
                ? spec.replicas()
                : 1;
        return tally.result(
                new RunResult.Key(trace.workload(), spec.grid().name(), replicas, policy.name(), spec.load()));
    }

    private void handle(Event event) {
        Flight flight = event.flight();
        if (flight == null) {
            arrive(event.session(), event.turn());
        } else if (event.firstToken()) {
            clusters.get(flight.cluster).firstToken(flight);
            policy.answered(flight, 200);
            tally.served(flight);
        } else {
            Flight next = clusters.get(flight.cluster).finish(flight, clock.seconds());
            policy.finished(flight);
            if (next != null) {
                started(next);
            }
            next(flight);
        }
    }

    /** The session's next turn is due after its pause. */
    private void next(Flight flight) {
        List<Turn> turns = trace.sessions().get(flight.session).turns();
        int turn = flight.turnIndex + 1;
        if (turn < turns.size()) {
            double at = clock.seconds() + turns.get(turn).thinkSeconds();
            schedule(new Event(at, sequence++, null, false, flight.session, turn));
        }
    }

    private void arrive(int session, int turn) {
        Flight flight = new Flight(trace.sessions().get(session).turns().get(turn), session, turn, clock.seconds());
        for (flight.attempt = 0; flight.attempt < 2; flight.attempt++) {
            policy.choose(flight, clusters);
            int status = failures.status(session, turn, flight.attempt);
            if (status == 200) {
                if (clusters.get(flight.cluster).admit(flight, clock.seconds())) {
                    started(flight);
                }
                return;
            }
            policy.answered(flight, status);
            policy.finished(flight);
        }
        flight.failed = true;
        tally.failed(flight);
        next(flight);
    }

    private void started(Flight flight) {
        schedule(new Event(flight.firstToken, sequence++, flight, true, flight.session, flight.turnIndex));
        schedule(new Event(flight.done, sequence++, flight, false, flight.session, flight.turnIndex));
    }

    private void scrape() {
        int[] depths = new int[clusters.size()];
        for (int i = 0; i < depths.length; i++) {
            depths[i] = clusters.get(i).waiting();
            policy.scraped(i, clusters.get(i).series(clock.nanoTime()));
        }
        double now = clock.seconds();
        if (now >= warmUp && now <= lastStart) {
            tally.spread(Arrays.stream(depths).max().orElse(0)
                    - Arrays.stream(depths).min().orElse(0));
        }
    }

    private void schedule(Event event) {
        events.add(event);
    }

    /** Sums over the measured requests. */
    private static final class Tally {
        private final double warmUp;
        private final List<Double> ttfts = new ArrayList<>();
        private final List<Flight> served = new ArrayList<>();
        private final Map<AffinityOutcome, Integer> outcomes = new EnumMap<>(AffinityOutcome.class);
        private long cached;
        private long prompt;
        private long predicted;
        private long reachable;
        private boolean predicting;
        private int failed;
        private int retried;
        private double spreadSum;
        private int spreadSamples;

        Tally(double warmUp) {
            this.warmUp = warmUp;
        }

        void served(Flight flight) {
            if (flight.arrival < warmUp) {
                return;
            }
            ttfts.add(flight.firstToken - flight.arrival);
            served.add(flight);
            cached += flight.cachedTokens;
            prompt += flight.turn.promptTokens();
            predicted += Math.max(0, flight.predictedCached);
            reachable += Math.min(flight.cachedTokens, reach(flight.turn));
            predicting |= flight.predictedCached >= 0;
            counted(flight);
        }

        void failed(Flight flight) {
            if (flight.arrival < warmUp) {
                return;
            }
            failed++;
            counted(flight);
        }

        private void counted(Flight flight) {
            retried += flight.attempt > 0 ? 1 : 0;
            flight.outcome.ifPresent(o -> outcomes.merge(o, 1, Integer::sum));
        }

        void spread(int spread) {
            spreadSum += spread;
            spreadSamples++;
        }

        RunResult result(RunResult.Key key) {
            double[] sorted =
                    ttfts.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double mean = Arrays.stream(sorted).average().orElse(0);
            double p90 = sorted.length == 0 ? 0 : sorted[(int) Math.ceil(0.9 * sorted.length) - 1];
            int requests = sorted.length + failed;
            Map<AffinityOutcome, Double> shares = new EnumMap<>(AffinityOutcome.class);
            outcomes.forEach((o, n) -> shares.put(o, n / (double) requests));
            return new RunResult(
                    key.workload(),
                    key.grid(),
                    key.replicas(),
                    key.policy(),
                    key.load(),
                    requests,
                    prompt == 0 ? 0 : cached / (double) prompt,
                    mean,
                    p90,
                    spreadSamples == 0 ? 0 : spreadSum / spreadSamples,
                    shares,
                    requests == 0 ? 0 : failed / (double) requests,
                    requests == 0 ? 0 : retried / (double) requests,
                    predicted,
                    predicting ? cached : 0,
                    predicting ? reachable : 0,
                    tail(p90));
        }

        /**
         * The most cached tokens the gateway can predict for {@code turn}: its keys × 64 (the keyer stops at 512
         * keys, 32,768 tokens, however long the prompt goes on).
         */
        private static long reach(Turn turn) {
            return (long) turn.keys().keys().size() * GatewayPolicies.PREDICTED_TOKENS_PER_BLOCK;
        }

        /** What the served requests at or above the p90 were. */
        private RunResult.Tail tail(double p90) {
            List<Flight> slow =
                    served.stream().filter(f -> f.firstToken - f.arrival >= p90).toList();
            if (slow.isEmpty()) {
                return RunResult.Tail.NONE;
            }
            Map<String, Double> shares = new TreeMap<>();
            double slot = 0;
            double waiting = 0;
            double own = 0;
            for (Flight f : slow) {
                String kind = f.attempt > 0
                        ? "retried"
                        : f.outcome.map(AffinityOutcome::label).orElse("none");
                shares.merge(kind, 1.0 / slow.size(), Double::sum);
                slot += f.slotStart - f.queuedAt;
                waiting += f.prefillStart - f.slotStart;
                own += f.firstToken - f.prefillStart;
            }
            int n = slow.size();
            return new RunResult.Tail(shares, slot / n, waiting / n, own / n);
        }
    }
}
