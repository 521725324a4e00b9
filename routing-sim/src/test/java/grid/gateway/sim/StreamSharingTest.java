package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.select.LoadOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Replica sharing in the simulator: R = 3 and 6 replicas behind a random spread, each with its own memory, sharing
 * confirmations and drops through a stream that delivers them 10 ms later (a site-local Redis: publish, XADD, XREAD),
 * against the same replicas without sharing and against one replica. Under {@code depth} (the order these
 * measurements used), whose numbers docs/routing-sim.md and docs/prefix-sharing.md quote: the memory's sharing is what is
 * tested here; {@code expected_wait}'s shared backlog is {@link SharedBacklogTest}'s.
 */
class StreamSharingTest {
    private static final double LAG_SECONDS = 0.010;

    @Test
    void replicasSharingThroughAStream_keepAtLeast95PercentOfOneReplicasHitRate() {
        for (Workload workload : new Workload[] {Workload.SHARED_CHAT, Workload.AGENTIC}) {
            Trace trace = TraceGenerator.generate(workload, 120, 11);
            GatewayTuning tuning =
                    GatewayTuning.recommended(1.0, Duration.ofSeconds(2)).withOrderBy(LoadOrder.DEPTH);
            double one = run(trace, 1, tuning).hitRate();
            for (int replicas : new int[] {3, 6}) {
                double alone = run(trace, replicas, tuning).hitRate();
                double shared = run(trace, replicas, tuning.withStreamSharing(LAG_SECONDS))
                        .hitRate();
                String what = workload.label() + " R=" + replicas + ": one " + one + ", alone " + alone + ", shared "
                        + shared;
                assertThat(shared).as(what).isGreaterThanOrEqualTo(0.95 * one);
                assertThat(shared).as(what).isGreaterThan(alone);
            }
        }
    }

    @Test
    void aLagLongerThanTheGapsBetweenTurns_losesWhatSharingGains() {
        Trace trace = TraceGenerator.generate(Workload.SHARED_CHAT, 120, 11);
        GatewayTuning tuning =
                GatewayTuning.recommended(1.0, Duration.ofSeconds(2)).withOrderBy(LoadOrder.DEPTH);
        double prompt = run(trace, 6, tuning.withStreamSharing(LAG_SECONDS)).hitRate();
        double late = run(trace, 6, tuning.withStreamSharing(3_600)).hitRate();
        double alone = run(trace, 6, tuning).hitRate();

        assertThat(late).isLessThan(prompt);
        // Nothing arrives within the run: exactly the replicas without sharing.
        assertThat(late).isEqualTo(alone);
    }

    private static RunResult run(Trace trace, int replicas, GatewayTuning tuning) {
        return Simulation.run(
                new Simulation.RunSpec(
                        SimGrid.slow(), trace, PolicyKind.GRID_SITE_ROUTE, 0.8, 9, replicas, FailedAnswers.none()),
                tuning);
    }
}
