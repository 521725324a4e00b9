package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.select.LoadOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The replicas' sends in the stream ({@code sharing.share_backlog}): with {@code load.order_by: expected_wait} each
 * replica's prefill backlog then counts its peers' prompts, not only its own third of them; under {@code depth} the
 * backlog is not read, so sharing it changes nothing.
 */
class SharedBacklogTest {
    private static final double LAG_SECONDS = 0.010;

    @Test
    void expectedWait_withThePeersSends_waitsLessThanWithOwnSendsOnly() {
        Trace trace = TraceGenerator.generate(Workload.TENANT_MIX, 120, 11);
        GatewayTuning shared = GatewayTuning.recommended(1.0, Duration.ofSeconds(2))
                .withOrderBy(LoadOrder.EXPECTED_WAIT)
                .withStreamSharing(LAG_SECONDS);
        RunResult own = run(trace, 3, shared);
        RunResult backlog = run(trace, 3, shared.withSharedBacklog());

        String what = "p90 own " + own.p90Ttft() + ", with the peers' sends " + backlog.p90Ttft();
        assertThat(backlog.p90Ttft()).as(what).isLessThan(own.p90Ttft());
        assertThat(backlog.meanTtft()).as(what).isLessThan(own.meanTtft());
    }

    @Test
    void depth_doesNotReadTheBacklog_soSharingItChangesNothing() {
        Trace trace = TraceGenerator.generate(Workload.SHARED_CHAT, 60, 11);
        GatewayTuning shared = GatewayTuning.recommended(1.0, Duration.ofSeconds(2))
                .withOrderBy(LoadOrder.DEPTH)
                .withStreamSharing(LAG_SECONDS);
        RunResult without = run(trace, 3, shared);
        RunResult with = run(trace, 3, shared.withSharedBacklog());

        assertThat(with.hitRate()).isEqualTo(without.hitRate());
        assertThat(with.p90Ttft()).isEqualTo(without.p90Ttft());
        assertThat(with.meanTtft()).isEqualTo(without.meanTtft());
    }

    @Test
    void theOneMemoryIdeal_waitsLessThanStreamSharingWithOwnBacklogs() {
        // The ideal's replicas share one memory and one backlog. This compares it with replicas that share memory
        // through the stream but keep their own backlogs; it does not isolate the backlog (the ideal still wins with
        // a backlog per replica, its memory being instant); OneBacklogWiringTest proves the wiring of the one backlog.
        Trace trace = TraceGenerator.generate(Workload.TENANT_MIX, 120, 11);
        GatewayTuning tuning =
                GatewayTuning.recommended(1.0, Duration.ofSeconds(2)).withOrderBy(LoadOrder.EXPECTED_WAIT);
        RunResult ideal = run(trace, 3, tuning.withSharedMemory());
        RunResult ownBacklogs = run(trace, 3, tuning.withStreamSharing(LAG_SECONDS));
        RunResult sharedSends =
                run(trace, 3, tuning.withStreamSharing(LAG_SECONDS).withSharedBacklog());

        String what = "p90 ideal " + ideal.p90Ttft() + ", stream with own backlogs " + ownBacklogs.p90Ttft()
                + ", stream with shared sends " + sharedSends.p90Ttft();
        assertThat(ideal.p90Ttft()).as(what).isLessThan(ownBacklogs.p90Ttft());
        assertThat(ideal.meanTtft()).as(what).isLessThan(ownBacklogs.meanTtft());
    }

    private static RunResult run(Trace trace, int replicas, GatewayTuning tuning) {
        return Simulation.run(
                new Simulation.RunSpec(
                        SimGrid.slow(), trace, PolicyKind.GRID_SITE_ROUTE, 0.8, 9, replicas, FailedAnswers.none()),
                tuning);
    }
}
