package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The comparison of the report: policies at loads on workloads' traces and grids, from one seed. Traces are made
 * once (synthetic ones generated on first use, replayed ones {@linkplain #add added}) and replayed by every run.
 *
 * <p>Not thread-safe.
 */
public final class Study {
    /** Offered loads, as fractions of the grid's capacity. */
    public static final double[] LOADS = {0.5, 0.8, 0.95, 1.1};

    private final long seed;
    private final double scale;
    private final FailedAnswers failures;
    private int traceCacheTokens = SimGrid.TRACE_CACHE_TOKENS;
    private boolean tracePeakLoad;
    private long draw;
    private final Map<String, Trace> traces = new LinkedHashMap<>();
    private final Map<String, TraceSummary> summaries = new LinkedHashMap<>();

    /**
     * What a trace looked like on a grid, for the report.
     *
     * @param workload the trace's workload label
     * @param grid the grid's name
     * @param requests requests in the trace
     * @param meanPromptTokens mean prompt tokens
     * @param meanIdealUncached mean prompt tokens no earlier request shared
     * @param meanOutputTokens mean answer tokens
     * @param capacity the grid's capacity on it, requests a second
     * @param peakToMeanWork {@link Trace#peakToMeanWork()}
     */
    public record TraceSummary(
            String workload,
            String grid,
            int requests,
            double meanPromptTokens,
            double meanIdealUncached,
            double meanOutputTokens,
            double capacity,
            double peakToMeanWork) {}

    /**
     * A study from {@code seed}; {@code scale} multiplies every synthetic trace's session count; {@code failures}
     * are the error answers of every run.
     */
    public Study(long seed, double scale, FailedAnswers failures) {
        this.seed = seed;
        if (!(scale > 0)) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: > 0)");
        }
        this.scale = scale;
        this.failures = requireNonNull(failures, "failures");
    }

    /** Sessions in the full-size trace of {@code workload}: each gives 4,000 to 6,000 requests. */
    public static int sessions(Workload workload) {
        return switch (workload) {
            case SHARED_CHAT -> 1000;
            case AGENTIC -> 200;
            case ONE_OFF -> 6000;
            case TENANT_MIX -> 1200;
        };
    }

    /** The seed. */
    public long seed() {
        return seed;
    }

    /** The error answers of every run. */
    public FailedAnswers failures() {
        return failures;
    }

    /** The traces' summaries on the grids run so far, in order of first run. */
    public List<TraceSummary> summaries() {
        return List.copyOf(summaries.values());
    }

    /** Adds a replayed trace, run by its {@link Trace#workload()} label. */
    public void add(Trace trace) {
        traces.put(trace.workload(), trace);
    }

    /** Sets every engine's prefix cache, in tokens, when a replayed trace runs ({@link SimGrid#TRACE_CACHE_TOKENS}). */
    public void traceCacheTokens(int tokens) {
        if (tokens <= 0) {
            throw new IllegalArgumentException("trace cache tokens: " + tokens + " (expected: > 0)");
        }
        traceCacheTokens = tokens;
    }

    /**
     * With {@code peak}, a replayed trace's offered load is measured against its busiest tenth (its rate is divided by
     * {@link Trace#peakToMeanWork()}), so that at 100% its busiest minutes, not its mean, meet the capacity.
     */
    public void tracePeakLoad(boolean peak) {
        tracePeakLoad = peak;
    }

    /**
     * Offsets every run's random seed by {@code offset} (exploration, tie-breaks, the replica spread) while the traces
     * and error answers stay the seed's: the same runs drawn again, to measure how far two runs of one configuration
     * differ ({@code --draw}).
     */
    public void draw(long offset) {
        draw = offset;
    }

    /** Whether a replayed trace's load is measured against its busiest tenth. */
    public boolean tracePeakLoad() {
        return tracePeakLoad;
    }

    /** Every engine's prefix cache when a replayed trace runs. */
    public int traceCacheTokens() {
        return traceCacheTokens;
    }

    /** The grid a run of {@code trace} uses: {@code grid}, with larger engine caches for a replayed trace. */
    public SimGrid gridFor(SimGrid grid, Trace trace) {
        return trace.replayed() ? grid.withCacheTokens(traceCacheTokens) : grid;
    }

    /**
     * Runs {@code policies} at {@code loads} on {@code workload} over {@code grid}; the gateway-fed policies are
     * configured by {@code tuning} and run as {@code replicas} replicas.
     */
    public List<RunResult> run(String workload, SimGrid grid, Selection selection, Consumer<String> progress) {
        Trace trace = trace(workload);
        SimGrid used = gridFor(grid, trace);
        summaries.putIfAbsent(
                workload + "/" + grid.name(),
                new TraceSummary(
                        workload,
                        grid.name(),
                        trace.requests(),
                        trace.meanPromptTokens(),
                        trace.meanIdealUncachedTokens(),
                        trace.meanOutputTokens(),
                        used.capacity(trace),
                        trace.peakToMeanWork()));
        List<RunResult> results = new ArrayList<>();
        for (double load : selection.loads()) {
            for (PolicyKind policy : selection.policies()) {
                long runSeed = draw
                        + seed * 31
                        + policy.ordinal() * 1_000_003L
                        + Math.round(load * 100)
                        + (selection.replicas() - 1) * 7_919L;
                double offered = tracePeakLoad ? load / trace.peakToMeanWork() : load;
                var spec =
                        new Simulation.RunSpec(used, trace, policy, offered, runSeed, selection.replicas(), failures);
                RunResult result = Simulation.run(spec, selection.tuning()).atLoad(load);
                progress.accept(line(result, selection.tuning()));
                results.add(result);
            }
        }
        return results;
    }

    /**
     * What to run on one workload and grid.
     *
     * @param policies the policies
     * @param loads the offered loads
     * @param tuning the gateway's configuration (both gateway-fed policies)
     * @param replicas gateway replicas
     */
    public record Selection(List<PolicyKind> policies, double[] loads, GatewayTuning tuning, int replicas) {
        public Selection {
            policies = List.copyOf(policies);
            loads = loads.clone();
            requireNonNull(tuning, "tuning");
        }

        /** {@code policies} at {@code loads}, default tuning, one replica. */
        public static Selection of(List<PolicyKind> policies, double[] loads) {
            return new Selection(policies, loads, GatewayTuning.defaults(), 1);
        }
    }

    /** The trace of {@code workload}: a synthetic workload's label, generated on first use, or an added trace. */
    public Trace trace(String workload) {
        Trace trace = traces.get(workload);
        if (trace != null) {
            return trace;
        }
        for (Workload w : Workload.values()) {
            if (w.label().equals(workload)) {
                int sessions = Math.max(20, (int) Math.round(sessions(w) * scale));
                trace = TraceGenerator.generate(w, sessions, seed ^ w.ordinal() * 0x9E3779B97F4A7C15L);
                traces.put(workload, trace);
                return trace;
            }
        }
        throw new IllegalArgumentException("unknown workload " + workload + " (no such synthetic workload or trace)");
    }

    private static String line(RunResult r, GatewayTuning tuning) {
        return String.format(
                Locale.ROOT,
                "%-12s %-6s R%d %-10s %-16s load %.2f  hit %.3f  ttft mean %.3f p90 %.3f  spread %.2f  failed %.3f",
                r.workload(),
                r.grid(),
                r.replicas(),
                tuning.name(),
                r.policy(),
                r.load(),
                r.hitRate(),
                r.meanTtft(),
                r.p90Ttft(),
                r.queueSpread(),
                r.failedShare());
    }
}
