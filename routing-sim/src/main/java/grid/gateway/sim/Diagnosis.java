package grid.gateway.sim;

import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Why {@code grid_site_route} falls short where it does: the shared-prompt workload at high load on one grid, rerun with the
 * gateway's configuration varied one part at a time (the selection code is the same in every row).
 *
 * <ul>
 *   <li>calibrated gate: {@code prefill_tokens_per_second} = the grid's mean prefill rate and
 *       {@code queued_request_seconds} = what one waiting request costs here (mean slot occupancy ÷ mean slots),
 *       both computed from the simulated grid and trace, not fitted to results;
 *   <li>fresh load signal: scrape every 100 ms, 1 s window, instead of every second over 10 s.
 * </ul>
 *
 * <p>Stateless.
 */
final class Diagnosis {
    static final double[] LOADS = {0.8, 0.95, 1.1};

    /**
     * One row.
     *
     * @param tuning the configuration's name
     * @param result what the run measured
     */
    record Row(String tuning, RunResult result) {}

    private Diagnosis() {}

    static List<Row> run(Study study, SimGrid grid, Consumer<String> progress) {
        String workload = Workload.SHARED_CHAT.label();
        Trace trace = study.trace(workload);
        List<Row> rows = new ArrayList<>();
        for (GatewayTuning tuning : tunings(grid, trace)) {
            List<PolicyKind> policies = List.of(PolicyKind.GRID_SITE_ROUTE, PolicyKind.LEAST_QUEUED);
            var selection = new Study.Selection(policies, LOADS, tuning, 1);
            for (RunResult result : study.run(workload, grid, selection, progress)) {
                rows.add(new Row(tuning.name(), result));
            }
        }
        return rows;
    }

    static List<GatewayTuning> tunings(SimGrid grid, Trace trace) {
        PrefixAffinitySettings defaults = PrefixAffinitySettings.defaults();
        PrefixAffinitySettings calibrated = calibrated(grid, trace);
        Duration freshWindow = Duration.ofSeconds(1);
        return List.of(
                GatewayTuning.defaults(),
                new GatewayTuning("calibrated gate", calibrated, 1.0, Duration.ofSeconds(10)),
                new GatewayTuning("fresh load signal", defaults, 0.1, freshWindow),
                new GatewayTuning("both", calibrated, 0.1, freshWindow));
    }

    /** The prefix_affinity block that describes {@code grid} on {@code trace}. */
    static PrefixAffinitySettings calibrated(SimGrid grid, Trace trace) {
        double prefill = grid.clusters().stream()
                .mapToDouble(ClusterModel::prefillTokensPerSecond)
                .average()
                .orElseThrow();
        double decode = grid.clusters().stream()
                .mapToDouble(ClusterModel::decodeTokensPerSecond)
                .average()
                .orElseThrow();
        double slots =
                grid.clusters().stream().mapToInt(ClusterModel::slots).average().orElseThrow();
        double occupancy = trace.meanIdealUncachedTokens() / prefill + trace.meanOutputTokens() / decode;
        PrefixAffinitySettings defaults = PrefixAffinitySettings.defaults();
        return new PrefixAffinitySettings(defaults.capacity(), defaults.ttl(), prefill, occupancy / slots);
    }
}
