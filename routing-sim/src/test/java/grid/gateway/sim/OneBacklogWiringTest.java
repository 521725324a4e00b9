package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.LoadOrder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The one-memory ideal's replicas count their sends in the one backlog they are given: every replica's route adds
 * its prefill to that backlog, so each sees what the others sent (were a replica to keep a backlog of its own, the
 * given one would stay empty for its sends).
 */
class OneBacklogWiringTest {
    @Test
    void everyReplicasSendIsCountedInTheOneBacklog() {
        SimClock clock = new SimClock();
        SimGrid simGrid = SimGrid.slow();
        Grid grid = simGrid.routingGrid();
        GatewayTuning tuning = GatewayTuning.recommended(1.0, Duration.ofSeconds(2))
                .withOrderBy(LoadOrder.EXPECTED_WAIT)
                .withSharedMemory();
        PrefillBacklog backlog = new PrefillBacklog();
        GatewayPolicies.Sharing sharing = new GatewayPolicies.Sharing(
                Optional.of(new PrefixMemory(tuning.settings(), clock, 1)), Optional.of(backlog), Optional.empty());
        List<SimCluster> clusters =
                simGrid.clusters().stream().map(SimCluster::new).toList();

        // Keyed prompts (the engine-model turns of Turns are unkeyed, and an unkeyed send adds no backlog).
        Trace trace = TraceGenerator.generate(Workload.ONE_OFF, 3, 5);
        double before = total(backlog, grid, clock);
        for (int replica = 0; replica < 3; replica++) {
            Policy policy =
                    GatewayPolicies.gridSiteRoute(simGrid, tuning, new SplittableRandom(replica), clock, sharing);
            for (int c = 0; c < clusters.size(); c++) {
                policy.scraped(c, clusters.get(c).series(clock.nanoTime()));
            }
            Flight flight = new Flight(trace.sessions().get(replica).turns().getFirst(), replica, 0, clock.seconds());
            policy.choose(flight, clusters);

            double after = total(backlog, grid, clock);
            assertThat(after)
                    .as("replica %d's send is in the one backlog", replica)
                    .isGreaterThan(before);
            before = after;
        }
    }

    private static double total(PrefillBacklog backlog, Grid grid, SimClock clock) {
        double seconds = 0;
        for (var cluster : grid.clusters()) {
            ClusterId id = cluster.id();
            seconds += backlog.seconds(id, clock.nanoTime());
        }
        return seconds;
    }
}
