package grid.gateway.sim;

import grid.gateway.routing.select.AffinityOutcome;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Writes the study as markdown: the grid, the traces, one table per workload, the outcome shares of
 * {@code grid_site_route}, the aims, and the diagnosis.
 *
 * <p>Stateless.
 */
final class Report {
    private Report() {}

    static String markdown(Study study, List<RunResult> results, List<Diagnosis.Row> diagnosis) {
        StringBuilder out = new StringBuilder();
        grid(out, study);
        traces(out, study);
        for (Workload workload : Workload.values()) {
            if (results.stream().anyMatch(r -> r.workload() == workload)) {
                workload(out, workload, results);
            }
        }
        outcomes(out, results);
        aims(out, results);
        diagnosis(out, diagnosis);
        return out.toString();
    }

    private static void grid(StringBuilder out, Study study) {
        out.append("Grid (seed ").append(study.seed()).append("):\n\n");
        out.append("| cluster | site | slots | prefill tok/s | decode tok/s per sequence | cache tokens |\n");
        out.append("|---|---|---:|---:|---:|---:|\n");
        for (ClusterModel c : study.grid().clusters()) {
            out.append(f(
                    "| %s | %s | %d | %,.0f | %,.0f | %,d |\n",
                    c.name(),
                    c.site(),
                    c.slots(),
                    c.prefillTokensPerSecond(),
                    c.decodeTokensPerSecond(),
                    c.cacheTokens()));
        }
    }

    private static void traces(StringBuilder out, Study study) {
        out.append("\nTraces:\n\n| workload | requests | mean prompt tokens | mean unshared (ideal uncached) tokens"
                + " | mean answer tokens | capacity (req/s) |\n|---|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<Workload, Study.TraceSummary> e : study.summaries().entrySet()) {
            Study.TraceSummary s = e.getValue();
            out.append(f(
                    "| %s | %,d | %,.0f | %,.0f | %,.0f | %.2f |\n",
                    e.getKey().label(),
                    s.requests(),
                    s.meanPromptTokens(),
                    s.meanIdealUncached(),
                    s.meanOutputTokens(),
                    s.capacity()));
        }
    }

    private static void workload(StringBuilder out, Workload workload, List<RunResult> results) {
        out.append("\n**").append(workload.label()).append("**\n\n");
        out.append("| load | policy | hit rate (tokens) | TTFT mean (s) | TTFT p90 (s) | queue spread |\n");
        out.append("|---:|---|---:|---:|---:|---:|\n");
        for (RunResult r : results) {
            if (r.workload() == workload) {
                out.append(f(
                        "| %.0f%% | %s | %.1f%% | %.2f | %.2f | %.2f |\n",
                        r.load() * 100, r.policy(), r.hitRate() * 100, r.meanTtft(), r.p90Ttft(), r.queueSpread()));
            }
        }
    }

    private static void outcomes(StringBuilder out, List<RunResult> results) {
        out.append("\nShare of requests per affinity outcome, `grid_site_route`:\n\n");
        out.append(
                "| workload | load | hit | load | miss | explore | unkeyed |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult r : results) {
            if (r.policy().equals(PolicyKind.GRID_SITE_ROUTE.label())) {
                out.append(f("| %s | %.0f%% |", r.workload().label(), r.load() * 100));
                for (AffinityOutcome o : AffinityOutcome.values()) {
                    out.append(f(" %.1f%% |", r.share(o) * 100));
                }
                out.append('\n');
            }
        }
    }

    private static void aims(StringBuilder out, List<RunResult> results) {
        out.append("\nAims, from the tables above:\n\n| workload | hit rate ÷ oracle's at 80% | least-queued p90 ÷ "
                + "grid_site_route p90 at 95% | at 110% |\n|---|---:|---:|---:|\n");
        for (Workload w : Workload.values()) {
            Optional<RunResult> gsr80 = find(results, w, PolicyKind.GRID_SITE_ROUTE, 0.8);
            Optional<RunResult> oracle80 = find(results, w, PolicyKind.ORACLE, 0.8);
            if (gsr80.isEmpty() || oracle80.isEmpty()) {
                continue;
            }
            double hitRatio = oracle80.get().hitRate() == 0
                    ? 1
                    : gsr80.get().hitRate() / oracle80.get().hitRate();
            out.append(f(
                    "| %s | %.2f | %s | %s |\n",
                    w.label(), hitRatio, p90Ratio(results, w, 0.95), p90Ratio(results, w, 1.1)));
        }
    }

    private static String p90Ratio(List<RunResult> results, Workload w, double load) {
        Optional<RunResult> gsr = find(results, w, PolicyKind.GRID_SITE_ROUTE, load);
        Optional<RunResult> lq = find(results, w, PolicyKind.LEAST_QUEUED, load);
        if (gsr.isEmpty() || lq.isEmpty()) {
            return "–";
        }
        return f("%.2f", lq.get().p90Ttft() / gsr.get().p90Ttft());
    }

    private static void diagnosis(StringBuilder out, List<Diagnosis.Row> rows) {
        if (rows.isEmpty()) {
            return;
        }
        out.append("\nDiagnosis, shared-chat: the same selection code under other gateway configurations:\n\n");
        out.append("| gateway config | load | policy | hit rate | TTFT mean (s) | TTFT p90 (s) | queue spread "
                + "| hit | load | miss | explore |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Diagnosis.Row row : rows) {
            RunResult r = row.result();
            out.append(f(
                    "| %s | %.0f%% | %s | %.1f%% | %.2f | %.2f | %.2f | %.0f%% | %.0f%% | %.0f%% | %.0f%% |\n",
                    row.tuning(),
                    r.load() * 100,
                    r.policy(),
                    r.hitRate() * 100,
                    r.meanTtft(),
                    r.p90Ttft(),
                    r.queueSpread(),
                    r.share(AffinityOutcome.HIT) * 100,
                    r.share(AffinityOutcome.LOAD) * 100,
                    r.share(AffinityOutcome.MISS) * 100,
                    r.share(AffinityOutcome.EXPLORE) * 100));
        }
    }

    static Optional<RunResult> find(List<RunResult> results, Workload w, PolicyKind policy, double load) {
        return results.stream()
                .filter(r -> r.workload() == w && r.policy().equals(policy.label()) && Math.abs(r.load() - load) < 1e-9)
                .findFirst();
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
