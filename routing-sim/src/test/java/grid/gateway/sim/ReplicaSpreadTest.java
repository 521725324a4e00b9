package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ReplicaSpreadTest {
    @Test
    void choose_spreadsAtRandomAndAnswersGoToTheReplicaThatRouted() {
        List<Recording> replicas = List.of(new Recording(), new Recording(), new Recording());
        ReplicaSpread spread = new ReplicaSpread(new ArrayList<>(replicas), new SplittableRandom(1));

        for (int i = 0; i < 300; i++) {
            Flight flight = new Flight(Turns.single(i + 1, 100, 1), i, 0, 0);
            spread.choose(flight, List.of());
            spread.answered(flight, 200);
            assertThat(replicas.get(flight.replica).answered).contains(i);
        }

        // Each replica routed about a third, and heard back only about its own.
        assertThat(replicas).allSatisfy(r -> assertThat(r.chosen).hasSizeBetween(70, 130));
        assertThat(replicas).allSatisfy(r -> assertThat(r.answered).isEqualTo(r.chosen));
    }

    @Test
    void scraped_everyReplicaScrapesEveryCluster() {
        List<Recording> replicas = List.of(new Recording(), new Recording());
        ReplicaSpread spread = new ReplicaSpread(new ArrayList<>(replicas), new SplittableRandom(1));

        spread.scraped(0, new SimCluster(SimGrid.slow().clusters().get(0)).series(1));
        spread.scraped(1, new SimCluster(SimGrid.slow().clusters().get(1)).series(1));

        assertThat(replicas).allSatisfy(r -> assertThat(r.scraped).containsExactly(0, 1));
    }

    @Test
    void run_replicas_eachRemembersOnlyWhatItRouted() {
        Trace trace = TraceGenerator.generate(Workload.SHARED_CHAT, 80, 3);
        RunResult one = run(trace, 1);
        RunResult six = run(trace, 6);

        assertThat(six.replicas()).isEqualTo(6);
        // Six memories, each seeing a sixth of the traffic, find fewer matches than one.
        assertThat(six.hitRate()).isLessThan(one.hitRate());
        assertThat(run(trace, 6)).isEqualTo(six);
    }

    private static RunResult run(Trace trace, int replicas) {
        return Simulation.run(new Simulation.RunSpec(
                SimGrid.slow(), trace, PolicyKind.GRID_SITE_ROUTE, 0.5, 9, replicas, FailedAnswers.none()));
    }

    private static final class Recording implements Policy {
        final List<Integer> chosen = new ArrayList<>();
        final List<Integer> answered = new ArrayList<>();
        final List<Integer> scraped = new ArrayList<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void choose(Flight flight, List<SimCluster> clusters) {
            flight.cluster = 0;
            chosen.add(flight.session);
        }

        @Override
        public void scraped(int cluster, EngineSeries series) {
            scraped.add(cluster);
        }

        @Override
        public void answered(Flight flight, int status) {
            answered.add(flight.session);
        }
    }
}
