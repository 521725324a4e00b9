package grid.gateway.sim;

import grid.gateway.routing.select.AffinityOutcome;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes the study as markdown: the grids, the traces, one table per workload and grid, the ratios of
 * {@code grid_site_route} to the oracle and to least-queued with its predicted and reported cached tokens, the
 * routing-quality aims met and missed ({@link Scoreboard}), the outcome shares, the cost of per-replica memory, and
 * the diagnosis.
 *
 * <p>Stateless.
 */
final class Report {
    /** The label suffix of runs under the recommended configuration. */
    static final String RECOMMENDED = "+rec";
    /** The label suffix of replicated runs that share one prefix memory (the ideal of replica sharing). */
    static final String SHARED = "+shared";

    private static final String GSR = PolicyKind.GRID_SITE_ROUTE.label();
    private static final String GSR_REC = GSR + RECOMMENDED;
    /** The label of {@code grid_site_route}'s runs under the recommended configuration. */
    static final String RECOMMENDED_ROUTER = GSR_REC;
    /** The label of {@code grid_site_route}'s runs with one recommended setting alone over the defaults. */
    static String alone(String setting) {
        return GSR + "+" + setting;
    }

    /** Whether {@code r} is a run of one recommended setting alone ({@link #alone}). */
    static boolean isAlone(RunResult r) {
        return GatewayTuning.SETTINGS.stream().anyMatch(s -> r.policy().equals(alone(s)));
    }

    /** The label of least-queued's runs on the recommended configuration's load signal. */
    static final String RECOMMENDED_LEAST_QUEUED = PolicyKind.LEAST_QUEUED.label() + RECOMMENDED;

    private Report() {}

    private static boolean isRouter(RunResult r) {
        return r.policy().equals(GSR) || r.policy().equals(GSR_REC);
    }

    /** The least-queued run on the same load signal as {@code router} (defaults or recommended). */
    private static Optional<RunResult> leastQueuedBeside(List<RunResult> results, RunResult router) {
        String label = PolicyKind.LEAST_QUEUED.label() + (router.policy().endsWith(RECOMMENDED) ? RECOMMENDED : "");
        return find(results, new RunResult.Key(router.workload(), router.grid(), 1, label, router.load()));
    }

    /** How the "shared" runs share, as the report says it when no other is given: the ideal one memory. */
    static final String ONE_MEMORY =
            "sharing one prefix memory, the ideal that sharing confirmations" + " (docs/prefix-sharing.md) approaches";

    /**
     * What the report says its runs were: {@code recommendedAs} names what {@code +rec} ran (after "`+rec`:"),
     * {@code sharedAs} how the "shared" replica runs share (after "the same replicas").
     */
    record Labels(String recommendedAs, String sharedAs, Set<SimCause> switchedOff) {
        static final Labels DEFAULT = new Labels("the recommended configuration", ONE_MEMORY, Set.of());

        Labels {
            switchedOff = Set.copyOf(switchedOff);
        }
    }

    /**
     * What a label adds when the simulation switches {@code causes} off around the router ({@code --without}): empty
     * for none.
     */
    static String switchedOff(Set<SimCause> causes) {
        return causes.isEmpty() ? "" : ", with the simulation switching off " + named(causes);
    }

    /** {@code causes} by their labels, in declaration order. */
    private static String named(Set<SimCause> causes) {
        return causes.stream().sorted().map(SimCause::label).collect(Collectors.joining(", "));
    }

    static String markdown(Study study, List<SimGrid> grids, List<RunResult> results, List<Diagnosis.Row> diagnosis) {
        return markdown(study, grids, results, diagnosis, Labels.DEFAULT);
    }

    /** As above, the runs described by {@code labels}. */
    static String markdown(
            Study study, List<SimGrid> grids, List<RunResult> results, List<Diagnosis.Row> diagnosis, Labels labels) {
        StringBuilder out = new StringBuilder();
        if (!labels.switchedOff().isEmpty()) {
            // A report of a hypothetical must never be read as the product's: say so before any table.
            out.append("**Not the product's behaviour:** every gateway-fed run below ran with the simulation"
                    + " switching off " + named(labels.switchedOff())
                    + " around the router (`--without`; docs/routing-sim.md).\n\n");
        }
        grids(out, study, grids);
        traces(out, study);
        for (String workload : workloads(results)) {
            for (String grid : gridsOf(results)) {
                workload(out, workload, grid, results);
            }
        }
        ratios(out, results, labels.recommendedAs());
        out.append(Scoreboard.markdown(results));
        outcomes(out, results);
        replicas(out, results, labels.sharedAs());
        diagnosis(out, diagnosis);
        return out.toString();
    }

    static List<String> workloads(List<RunResult> results) {
        Set<String> out = new LinkedHashSet<>();
        results.forEach(r -> out.add(r.workload()));
        return new ArrayList<>(out);
    }

    static List<String> gridsOf(List<RunResult> results) {
        Set<String> out = new LinkedHashSet<>();
        results.forEach(r -> out.add(r.grid()));
        return new ArrayList<>(out);
    }

    private static void grids(StringBuilder out, Study study, List<SimGrid> grids) {
        FailedAnswers f = study.failures();
        out.append(f(
                "Seed %d; error answers: %.1f%% 429 and %.1f%% 503 per attempt, one retry. A replayed trace runs with"
                        + " %,d tokens of engine cache a cluster, its load measured against %s.\n\nGrids:\n\n",
                study.seed(),
                f.tooManyRequests() * 100,
                f.serverErrors() * 100,
                study.traceCacheTokens(),
                study.tracePeakLoad() ? "its busiest tenth of time" : "its mean"));
        out.append("| grid | cluster | site | slots | prefill tok/s | decode tok/s per sequence | cache tokens |\n");
        out.append("|---|---|---|---:|---:|---:|---:|\n");
        for (SimGrid grid : grids) {
            for (ClusterModel c : grid.clusters()) {
                out.append(f(
                        "| %s | %s | %s | %d | %,.0f | %,.0f | %,d |\n",
                        grid.name(),
                        c.name(),
                        c.site(),
                        c.slots(),
                        c.prefillTokensPerSecond(),
                        c.decodeTokensPerSecond(),
                        c.cacheTokens()));
            }
        }
    }

    private static void traces(StringBuilder out, Study study) {
        out.append("\nTraces:\n\n| workload | grid | requests | mean prompt tokens | mean unshared (ideal uncached)"
                + " tokens | mean answer tokens | capacity (req/s) | busiest tenth's unshared work ÷ mean |\n"
                + "|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (Study.TraceSummary s : study.summaries()) {
            out.append(f(
                    "| %s | %s | %,d | %,.0f | %,.0f | %,.0f | %.2f | %.2f |\n",
                    s.workload(),
                    s.grid(),
                    s.requests(),
                    s.meanPromptTokens(),
                    s.meanIdealUncached(),
                    s.meanOutputTokens(),
                    s.capacity(),
                    s.peakToMeanWork()));
        }
    }

    private static void workload(StringBuilder out, String workload, String grid, List<RunResult> results) {
        List<RunResult> rows = results.stream()
                .filter(r -> r.workload().equals(workload) && r.grid().equals(grid) && r.replicas() == 1)
                .toList();
        if (rows.isEmpty()) {
            return;
        }
        out.append("\n**").append(workload).append(", ").append(grid).append(" grid**\n\n");
        out.append("| load | policy | hit rate (tokens) | TTFT mean (s) | TTFT p90 (s) | queue spread | failed |\n");
        out.append("|---:|---|---:|---:|---:|---:|---:|\n");
        for (RunResult r : rows) {
            out.append("| ").append(cells(r)).append(f(" | %.1f%% |\n", r.failedShare() * 100));
        }
    }

    private static void ratios(StringBuilder out, List<RunResult> results, String recommendedAs) {
        out.append("\n`grid_site_route` (one replica; `+rec`: " + recommendedAs + ") against the oracle and"
                + " least-queued on the same load signal; cached tokens summed over measured requests (predicted ="
                + " decision run × 64; within the keys' reach = each request's reported tokens capped at its keys × 64,"
                + " since the keyer stops at 512 keys, 32,768 tokens):\n\n");
        out.append(
                "| workload | grid | load | config | hit ÷ oracle | p90 ÷ oracle | mean ÷ oracle | p90 ÷ least-queued"
                        + " | mean ÷ least-queued | predicted cached | reported cached | predicted ÷ reported"
                        + " | predicted ÷ reported within the keys' reach |\n");
        out.append("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult g : results) {
            if (!isRouter(g) || g.replicas() != 1) {
                continue;
            }
            Optional<RunResult> oracle = find(results, g, PolicyKind.ORACLE);
            Optional<RunResult> lq = leastQueuedBeside(results, g);
            out.append(f(
                    "| %s | %s | %.0f%% | %s | ",
                    g.workload(),
                    g.grid(),
                    g.load() * 100,
                    g.policy().endsWith(RECOMMENDED) ? "recommended" : "defaults"));
            out.append(ratio(g.hitRate(), oracle.map(RunResult::hitRate))).append(" | ");
            out.append(ratio(g.p90Ttft(), oracle.map(RunResult::p90Ttft))).append(" | ");
            out.append(ratio(g.meanTtft(), oracle.map(RunResult::meanTtft))).append(" | ");
            out.append(ratio(g.p90Ttft(), lq.map(RunResult::p90Ttft))).append(" | ");
            out.append(ratio(g.meanTtft(), lq.map(RunResult::meanTtft))).append(" | ");
            out.append(f("%,d | %,d | ", g.predictedCached(), g.reportedCached()));
            out.append(ratio(g.predictedCached(), Optional.of((double) g.reportedCached())))
                    .append(" | ");
            out.append(ratio(g.predictedCached(), Optional.of((double) g.reachableCached())))
                    .append(" |\n");
        }
    }

    private static String ratio(double value, Optional<Double> base) {
        return base.filter(b -> b > 0).map(b -> f("%.2f", value / b)).orElse("–");
    }

    private static void outcomes(StringBuilder out, List<RunResult> results) {
        out.append(
                "\nShare of requests per affinity outcome, `grid_site_route` (one replica), and per error path:\n\n");
        out.append("| workload | grid | load | policy | hit | load | miss | explore | unkeyed | retried | failed |\n"
                + "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (RunResult r : results) {
            if ((isRouter(r) || isAlone(r)) && r.replicas() == 1) {
                out.append(f("| %s | %s | %.0f%% | %s |", r.workload(), r.grid(), r.load() * 100, r.policy()));
                for (AffinityOutcome o : AffinityOutcome.values()) {
                    out.append(f(" %.1f%% |", r.share(o) * 100));
                }
                out.append(f(" %.1f%% | %.1f%% |\n", r.retriedShare() * 100, r.failedShare() * 100));
            }
        }
    }

    private static void replicas(StringBuilder out, List<RunResult> results, String sharedAs) {
        List<Integer> counts = results.stream()
                .filter(Report::isRouter)
                .map(RunResult::replicas)
                .distinct()
                .sorted()
                .toList();
        if (counts.size() < 2) {
            return;
        }
        out.append("\nThe cost of per-replica memory: `grid_site_route` as R replicas behind a random spread (each its"
                + " own memory and window; every replica scrapes every cluster); \"shared\": the same replicas "
                + sharedAs + ":\n\n"
                + "| workload | grid | load | policy |");
        counts.forEach(n -> out.append(f(" hit R=%d |", n)));
        counts.forEach(n -> out.append(f(" p90 R=%d (s) |", n)));
        List<Integer> sharedCounts = counts.subList(1, counts.size());
        sharedCounts.forEach(n -> out.append(f(" hit R=%d shared |", n)));
        out.append("\n|---|---|---:|---|")
                .append("---:|".repeat(counts.size() * 2 + sharedCounts.size()))
                .append('\n');
        for (RunResult g : results) {
            if (!isRouter(g) || g.replicas() != counts.getFirst()) {
                continue;
            }
            out.append(f("| %s | %s | %.0f%% | %s |", g.workload(), g.grid(), g.load() * 100, g.policy()));
            for (int n : counts) {
                out.append(find(results, new RunResult.Key(g.workload(), g.grid(), n, g.policy(), g.load()))
                        .map(r -> f(" %.1f%% |", r.hitRate() * 100))
                        .orElse(" – |"));
            }
            for (int n : counts) {
                out.append(find(results, new RunResult.Key(g.workload(), g.grid(), n, g.policy(), g.load()))
                        .map(r -> f(" %.2f |", r.p90Ttft()))
                        .orElse(" – |"));
            }
            for (int n : sharedCounts) {
                out.append(find(results, new RunResult.Key(g.workload(), g.grid(), n, g.policy() + SHARED, g.load()))
                        .map(r -> f(" %.1f%% |", r.hitRate() * 100))
                        .orElse(" – |"));
            }
            out.append('\n');
        }
    }

    private static void diagnosis(StringBuilder out, List<Diagnosis.Row> rows) {
        if (rows.isEmpty()) {
            return;
        }
        out.append(f(
                "\nDiagnosis, shared-chat on the %s grid: the same selection code under other gateway configurations:"
                        + "\n\n",
                rows.getFirst().result().grid()));
        out.append("| gateway config | load | policy | hit rate | TTFT mean (s) | TTFT p90 (s) | queue spread "
                + "| hit | load | miss | explore |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Diagnosis.Row row : rows) {
            RunResult r = row.result();
            out.append(f(
                    "| %s | %s | %.0f%% | %.0f%% | %.0f%% | %.0f%% |\n",
                    row.tuning(),
                    cells(r),
                    r.share(AffinityOutcome.HIT) * 100,
                    r.share(AffinityOutcome.LOAD) * 100,
                    r.share(AffinityOutcome.MISS) * 100,
                    r.share(AffinityOutcome.EXPLORE) * 100));
        }
    }

    /** A run's load, policy, hit rate, TTFT mean and p90, and queue spread: table cells joined by {@code " | "}. */
    private static String cells(RunResult r) {
        return f(
                "%.0f%% | %s | %.1f%% | %.2f | %.2f | %.2f",
                r.load() * 100, r.policy(), r.hitRate() * 100, r.meanTtft(), r.p90Ttft(), r.queueSpread());
    }

    /** The one-replica run of {@code policy} beside {@code like} (same workload, grid and load). */
    static Optional<RunResult> find(List<RunResult> results, RunResult like, PolicyKind policy) {
        return find(results, new RunResult.Key(like.workload(), like.grid(), 1, policy.label(), like.load()));
    }

    /** The run of {@code key}, its load compared within 1e-9. */
    static Optional<RunResult> find(List<RunResult> results, RunResult.Key key) {
        return results.stream()
                .filter(r -> r.workload().equals(key.workload())
                        && r.grid().equals(key.grid())
                        && r.replicas() == key.replicas()
                        && r.policy().equals(key.policy())
                        && Math.abs(r.load() - key.load()) < 1e-9)
                .findFirst();
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
