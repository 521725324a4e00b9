package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The comparison of the report: every policy at every load on one workload's trace, from one seed.
 *
 * <p>Not thread-safe.
 */
public final class Study {
    /** Offered loads, as fractions of the grid's capacity. */
    public static final double[] LOADS = {0.5, 0.8, 0.95, 1.1};

    private final SimGrid grid;
    private final long seed;
    private final double scale;
    private final Map<Workload, TraceSummary> summaries = new EnumMap<>(Workload.class);
    private final Map<Workload, Trace> traces = new EnumMap<>(Workload.class);

    /**
     * What a trace looked like, for the report.
     *
     * @param requests requests in the trace
     * @param meanPromptTokens mean prompt tokens
     * @param meanIdealUncached mean prompt tokens no earlier request shared
     * @param meanOutputTokens mean answer tokens
     * @param capacity the grid's capacity on it, requests a second
     */
    public record TraceSummary(
            int requests,
            double meanPromptTokens,
            double meanIdealUncached,
            double meanOutputTokens,
            double capacity) {}

    /** A study of {@code grid} from {@code seed}; {@code scale} multiplies every trace's session count. */
    public Study(SimGrid grid, long seed, double scale) {
        this.grid = requireNonNull(grid, "grid");
        this.seed = seed;
        if (!(scale > 0)) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: > 0)");
        }
        this.scale = scale;
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

    /** The grid studied. */
    public SimGrid grid() {
        return grid;
    }

    /** The seed. */
    public long seed() {
        return seed;
    }

    /** The traces' summaries, by workload, for the workloads run so far. */
    public Map<Workload, TraceSummary> summaries() {
        return new EnumMap<>(summaries);
    }

    /** Runs every policy at every load on {@code workload}, reporting progress to {@code progress}. */
    public List<RunResult> workload(Workload workload, Consumer<String> progress) {
        return workload(workload, List.of(PolicyKind.values()), LOADS, progress);
    }

    /** Runs {@code policies} at {@code loads} on {@code workload}. */
    public List<RunResult> workload(
            Workload workload, List<PolicyKind> policies, double[] loads, Consumer<String> progress) {
        return workload(workload, policies, loads, GatewayTuning.defaults(), progress);
    }

    /** Runs {@code policies} at {@code loads} on {@code workload}, the gateway configured by {@code tuning}. */
    public List<RunResult> workload(
            Workload workload,
            List<PolicyKind> policies,
            double[] loads,
            GatewayTuning tuning,
            Consumer<String> progress) {
        Trace trace = trace(workload);
        summaries.put(
                workload,
                new TraceSummary(
                        trace.requests(),
                        trace.meanPromptTokens(),
                        trace.meanIdealUncachedTokens(),
                        trace.meanOutputTokens(),
                        grid.capacity(trace)));
        List<RunResult> results = new ArrayList<>();
        for (double load : loads) {
            for (PolicyKind policy : policies) {
                long runSeed = seed * 31 + policy.ordinal() * 1_000_003L + Math.round(load * 100);
                RunResult result = Simulation.run(new Simulation.RunSpec(grid, trace, policy, load, runSeed), tuning);
                progress.accept(String.format(
                        java.util.Locale.ROOT,
                        "%-12s %-10s %-16s load %.2f  hit %.3f  ttft mean %.3f p90 %.3f  spread %.2f",
                        workload.label(),
                        tuning.name(),
                        policy.label(),
                        load,
                        result.hitRate(),
                        result.meanTtft(),
                        result.p90Ttft(),
                        result.queueSpread()));
                results.add(result);
            }
        }
        return results;
    }

    /** The trace of {@code workload}, generated on first use. */
    public Trace trace(Workload workload) {
        Trace trace = traces.get(workload);
        if (trace == null) {
            int sessions = Math.max(20, (int) Math.round(sessions(workload) * scale));
            trace = TraceGenerator.generate(workload, sessions, seed ^ workload.ordinal() * 0x9E3779B97F4A7C15L);
            traces.put(workload, trace);
        }
        return trace;
    }
}
