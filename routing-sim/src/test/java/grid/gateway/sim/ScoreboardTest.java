package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The routing-quality aims (docs/tuning.md) counted from a report's runs: each aim's boundary, what counts toward none,
 * and the misses named.
 */
class ScoreboardTest {
    private static final String ROUTER = Report.RECOMMENDED_ROUTER;
    private static final String LQ = Report.RECOMMENDED_LEAST_QUEUED;
    private static final String ORACLE = PolicyKind.ORACLE.label();

    private static RunResult run(String workload, String policy, double load, double hit, double mean, double p90) {
        return run(workload, "mixed", 1, policy, load, hit, mean, p90);
    }

    private static RunResult run(
            String workload,
            String grid,
            int replicas,
            String policy,
            double load,
            double hit,
            double mean,
            double p90) {
        return new RunResult(
                workload,
                grid,
                replicas,
                policy,
                load,
                100,
                hit,
                mean,
                p90,
                0,
                Map.of(),
                0,
                0,
                0,
                0,
                0,
                RunResult.Tail.NONE);
    }

    /** A cell at {@code load}: the router, the oracle and least-queued, each as hit rate, mean and p90. */
    private static List<RunResult> cell(String workload, double load, double[] router, double[] oracle, double[] lq) {
        return List.of(
                run(workload, ROUTER, load, router[0], router[1], router[2]),
                run(workload, ORACLE, load, oracle[0], oracle[1], oracle[2]),
                run(workload, LQ, load, lq[0], lq[1], lq[2]));
    }

    private static Scoreboard.Aim aim(List<RunResult> results, int index) {
        return Scoreboard.of(results).get(index);
    }

    @Test
    void at80_bothHitAndP90MustMeet_atTheirBoundaries() {
        double[] oracle = {1.0, 0.1, 0.5};
        double[] lq = {0.7, 1, 2};
        List<RunResult> results = new ArrayList<>();
        results.addAll(cell("at-both-bounds", 0.8, new double[] {0.95, 0.2, 1.0}, oracle, lq));
        results.addAll(cell("hit-short", 0.8, new double[] {0.94, 0.2, 0.6}, oracle, lq));
        results.addAll(cell("p90-long", 0.8, new double[] {1.0, 0.2, 1.01}, oracle, lq));

        Scoreboard.Aim at80 = aim(results, 0);

        assertThat(at80.met()).isEqualTo(1);
        assertThat(at80.of()).isEqualTo(3);
        assertThat(at80.misses())
                .containsExactly(
                        "hit-short/mixed at 80% (hit 0.940 ×, p90 1.20 ×)",
                        "p90-long/mixed at 80% (hit 1.000 ×, p90 2.02 ×)");
    }

    @Test
    void at80_aWorkloadWithoutHitsIsJudgedOnP90Alone() {
        List<RunResult> results =
                cell("one-off", 0.8, new double[] {0, 0.2, 1.0}, new double[] {0, 0.1, 0.5}, new double[] {0, 1, 2});

        assertThat(aim(results, 0).met()).isEqualTo(1);
    }

    @Test
    void overload_p90HalfOfLeastQueuedsOrBetter_at95And110Only() {
        double[] oracle = {0.9, 0.1, 0.5};
        List<RunResult> results = new ArrayList<>();
        results.addAll(cell("half", 0.95, new double[] {0.9, 0.5, 1.0}, oracle, new double[] {0.7, 1, 2}));
        results.addAll(cell("more-than-half", 1.1, new double[] {0.9, 0.5, 1.04}, oracle, new double[] {0.7, 1, 2}));
        results.addAll(cell("not-overload", 0.5, new double[] {0.9, 0.5, 1.5}, oracle, new double[] {0.7, 1, 2}));

        Scoreboard.Aim overload = aim(results, 1);

        assertThat(overload.met()).isEqualTo(1);
        assertThat(overload.of()).isEqualTo(2);
        assertThat(overload.misses()).containsExactly("more-than-half/mixed at 110% (p90 0.52 ×)");
    }

    @Test
    void noWorse_meanAndP90Within5PercentOfLeastQueueds_atEveryLoad() {
        double[] oracle = {0, 0.1, 0.5};
        double[] lq = {0, 1, 2};
        List<RunResult> results = new ArrayList<>();
        results.addAll(cell("within", 0.5, new double[] {0, 1.05, 2.1}, oracle, lq));
        results.addAll(cell("mean-worse", 0.8, new double[] {0, 1.06, 2.0}, oracle, lq));
        results.addAll(cell("p90-worse", 1.1, new double[] {0, 1.0, 2.2}, oracle, lq));

        Scoreboard.Aim noWorse = aim(results, 2);

        assertThat(noWorse.met()).isEqualTo(1);
        assertThat(noWorse.of()).isEqualTo(3);
        assertThat(noWorse.misses())
                .containsExactly(
                        "mean-worse/mixed at 80% (mean 1.06 ×, p90 1.00 ×)",
                        "p90-worse/mixed at 110% (mean 1.00 ×, p90 1.10 ×)");
    }

    @Test
    void defaultsOnTheFastGrid_hitRateAtLeast90PercentOfTheOracles_atEveryLoad() {
        String defaults = PolicyKind.GRID_SITE_ROUTE.label();
        List<RunResult> results = List.of(
                fast("shared-chat", defaults, 0.5, 0.9),
                fast("shared-chat", ORACLE, 0.5, 1.0),
                fast("shared-chat", defaults, 1.1, 0.89),
                fast("shared-chat", ORACLE, 1.1, 1.0),
                fast("one-off", defaults, 0.8, 0),
                fast("one-off", ORACLE, 0.8, 0),
                run("not-fast", defaults, 0.8, 0.1, 1, 1),
                run("not-fast", ORACLE, 0.8, 0.9, 1, 1));

        Scoreboard.Aim defaultsFast = aim(results, 3);

        assertThat(defaultsFast.met()).isEqualTo(1);
        assertThat(defaultsFast.of()).isEqualTo(2);
        assertThat(defaultsFast.misses()).containsExactly("shared-chat/fast at 110% (hit 0.890 ×)");
    }

    private static RunResult fast(String workload, String policy, double load, double hit) {
        return run(workload, "fast", 1, policy, load, hit, 1, 1);
    }

    @Test
    void otherConfigurationsAndReplicas_andCellsWithoutTheirBaselines_countTowardNoAim() {
        List<RunResult> results = List.of(
                run("defaults", PolicyKind.GRID_SITE_ROUTE.label(), 0.8, 0.1, 9, 9),
                run("defaults", ORACLE, 0.8, 0.9, 0.1, 0.5),
                run("replicas", "mixed", 3, ROUTER, 0.8, 0.1, 9, 9),
                run("replicas", ORACLE, 0.8, 0.9, 0.1, 0.5),
                run("alone", ROUTER, 0.95, 0.1, 9, 9));

        assertThat(Scoreboard.of(results)).allSatisfy(a -> assertThat(a.of()).isZero());
        assertThat(Scoreboard.markdown(results)).isEmpty();
    }

    @Test
    void markdown_oneRowAnAim_withItsCount() {
        double[] router = {0.9, 0.2, 1.5};
        double[] oracle = {0.9, 0.1, 0.5};
        double[] lq = {0.7, 1, 2};
        List<RunResult> results = cell("shared-chat", 0.8, router, oracle, lq);

        assertThat(Scoreboard.markdown(results))
                .contains("| 80%: hit rate ≥ 0.95 × the oracle's and p90 ≤ 2 × the oracle's | 0 of 1 | "
                        + "shared-chat/mixed at 80% (hit 1.000 ×, p90 3.00 ×) |")
                .contains("| 95% and 110%: p90 ≤ 0.5 × least-queued's | 0 of 0 | – |")
                .contains("| every load: mean and p90 ≤ 1.05 × least-queued's | 1 of 1 | – |")
                .contains("| the seed's defaults, fast grid, every load: hit rate ≥ 0.9 × the oracle's | 0 of 0 | – |");
    }
}
