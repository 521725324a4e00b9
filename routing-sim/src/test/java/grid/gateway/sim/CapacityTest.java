package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class CapacityTest {
    @Test
    void capacity_longPrompts_boundByThePrefillServer() {
        ClusterModel cluster = new ClusterModel("east", "east-a", 100, 1000, 10, 0);

        // 2,000 tokens at 1,000 tokens/s: 0.5 requests/s; the slots would allow 100 / (2 + 1) = 33.
        assertThat(cluster.capacity(2000, 10)).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void capacity_longAnswers_boundByTheSlots() {
        ClusterModel cluster = new ClusterModel("east", "east-a", 4, 1000, 10, 0);

        // Each request holds a slot 0.1 s + 100 / 10 s = 10.1 s: 4 slots give 0.396 requests/s; prefill allows 10.
        assertThat(cluster.capacity(100, 100)).isCloseTo(4 / 10.1, within(1e-9));
    }

    @Test
    void capacity_grid_sumsItsClustersOnTheTracesUnsharedTokens() {
        Turn turn = Turns.single(1, 1000, 100);
        Trace trace = new Trace(Workload.ONE_OFF, List.of(new Session(1, List.of(withIdeal(turn, 500)))));
        SimGrid grid = new SimGrid(List.of(
                new ClusterModel("east", "east-a", 100, 1000, 10, 0),
                new ClusterModel("west", "west-a", 1, 1000, 10, 0)));

        // east-a: prefill-bound at 1000 / 500 = 2; west-a: slot-bound at 1 / (0.5 + 10).
        assertThat(grid.capacity(trace)).isCloseTo(2 + 1 / 10.5, within(1e-9));
    }

    private static Turn withIdeal(Turn turn, int idealUncached) {
        return new Turn(turn.keys(), turn.blocks(), turn.promptTokens(), turn.outputTokens(), 0, idealUncached);
    }
}
