package grid.gateway.sim;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the p90 time to first token of {@code grid_site_route} is made of: the same runs with one cause switched off at
 * a time in the simulation ({@link SimCause}; the error answers by running without them), then all of them, beside the
 * oracle with and without error answers. What is left with every cause off is the router's own: where it queues
 * requests that it could have placed better. The slowest tenth of each run is broken down too ({@link RunResult.Tail}).
 *
 * <p>Stateless.
 */
final class Decomposition {
    /**
     * One run.
     *
     * @param configuration what was switched off, or the oracle's label
     * @param result what the run measured
     */
    record Row(String configuration, RunResult result) {}

    private static final String RECOMMENDED = "as configured";

    private Decomposition() {}

    /**
     * The same study (seed, traces) with and without error answers.
     *
     * @param withErrors the study's error answers
     * @param withoutErrors none
     */
    record Studies(Study withErrors, Study withoutErrors) {}

    /**
     * What to decompose.
     *
     * @param workload the workload's label
     * @param grid the grid
     * @param loads the offered loads
     */
    record Cell(String workload, SimGrid grid, double[] loads) {
        Cell {
            loads = loads.clone();
        }
    }

    /** The rows of {@code cell} under {@code tuning}. */
    static List<Row> run(Studies studies, Cell cell, GatewayTuning tuning, Consumer<String> progress) {
        List<Row> rows = new ArrayList<>();
        rows.addAll(router(studies.withErrors(), cell, tuning, RECOMMENDED, progress));
        for (SimCause cause : SimCause.values()) {
            rows.addAll(
                    router(studies.withErrors(), cell, tuning.withSwitchedOff(Set.of(cause)), cause.row(), progress));
        }
        rows.addAll(router(studies.withoutErrors(), cell, tuning, "without error answers", progress));
        GatewayTuning allOff = tuning.withSwitchedOff(EnumSet.of(SimCause.EXPLORATION, SimCause.MISS_PLACEMENT));
        rows.addAll(router(
                studies.withoutErrors(),
                cell,
                allOff,
                "without exploration and error answers, misses placed by the oracle",
                progress));
        rows.addAll(oracle(studies.withErrors(), cell, "oracle", progress));
        rows.addAll(oracle(studies.withoutErrors(), cell, "oracle without error answers", progress));
        return rows;
    }

    private static List<Row> router(
            Study study, Cell cell, GatewayTuning tuning, String label, Consumer<String> progress) {
        var selection = new Study.Selection(List.of(PolicyKind.GRID_SITE_ROUTE), cell.loads(), tuning, 1);
        return study.run(cell.workload(), cell.grid(), selection, progress).stream()
                .map(r -> new Row(label, r))
                .toList();
    }

    private static List<Row> oracle(Study study, Cell cell, String label, Consumer<String> progress) {
        var selection = new Study.Selection(List.of(PolicyKind.ORACLE), cell.loads(), GatewayTuning.defaults(), 1);
        return study.run(cell.workload(), cell.grid(), selection, progress).stream()
                .map(r -> new Row(label, r))
                .toList();
    }

    /** The decomposition table and the slowest tenth's breakdown, one line a run. */
    static String markdown(List<Row> rows, String configuration) {
        StringBuilder out = new StringBuilder();
        out.append(f(
                "What the p90 of grid_site_route (%s) is made of: each cause switched off in the simulation (the"
                        + " router's rules unchanged); p90 ÷ oracle is against the oracle of the same row set with error"
                        + " answers. The slowest tenth: share retried, share per outcome of the others, and their mean"
                        + " seconds waiting for a slot, waiting for the prompts ahead on the prefill path, and computing"
                        + " their own prompt.\n\n",
                configuration));
        out.append("| workload | grid | load | run | hit rate | TTFT mean (s) | TTFT p90 (s) | p90 ÷ oracle "
                + "| slowest tenth: retried / miss / explore / load / hit | slot wait / prefill wait / own prefill (s) |\n"
                + "|---|---|---:|---|---:|---:|---:|---:|---|---|\n");
        for (Row row : rows) {
            RunResult r = row.result();
            double oracle = rows.stream()
                    .filter(o -> o.configuration().equals("oracle")
                            && o.result().workload().equals(r.workload())
                            && o.result().grid().equals(r.grid())
                            && Math.abs(o.result().load() - r.load()) < 1e-9)
                    .mapToDouble(o -> o.result().p90Ttft())
                    .findFirst()
                    .orElse(Double.NaN);
            RunResult.Tail t = r.tail();
            out.append(f(
                    "| %s | %s | %.0f%% | %s | %.1f%% | %.3f | %.3f | %.2f | %.0f%% / %.0f%% / %.0f%% / %.0f%% / %.0f%%"
                            + " | %.2f / %.2f / %.2f |\n",
                    r.workload(),
                    r.grid(),
                    r.load() * 100,
                    row.configuration(),
                    r.hitRate() * 100,
                    r.meanTtft(),
                    r.p90Ttft(),
                    r.p90Ttft() / oracle,
                    t.share("retried") * 100,
                    t.share("miss") * 100,
                    t.share("explore") * 100,
                    t.share("load") * 100,
                    t.share("hit") * 100,
                    t.slotWait(),
                    t.prefillWait(),
                    t.ownPrefill()));
        }
        return out.toString();
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
