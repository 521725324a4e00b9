package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class FailedAnswersTest {
    @Test
    void status_sameRequest_sameAnswerWhateverElseHappened() {
        FailedAnswers failures = new FailedAnswers(0.3, 0.3, 7);

        for (int session = 0; session < 100; session++) {
            assertThat(failures.status(session, 2, 1)).isEqualTo(failures.status(session, 2, 1));
        }
    }

    @Test
    void status_shares_matchTheConfiguredSplit() {
        FailedAnswers failures = new FailedAnswers(0.05, 0.10, 3);
        int tooMany = 0;
        int server = 0;
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            int status = failures.status(i, i % 7, i % 2);
            tooMany += status == 429 ? 1 : 0;
            server += status == 503 ? 1 : 0;
        }

        assertThat(tooMany / (double) n).isCloseTo(0.05, within(0.003));
        assertThat(server / (double) n).isCloseTo(0.10, within(0.003));
    }

    @Test
    void status_none_alwaysOk() {
        assertThat(FailedAnswers.none().status(2, 3, 0)).isEqualTo(200);
    }

    @Test
    void run_errorAnswers_retriedOnceThenFailed() {
        Trace trace = TraceGenerator.generate(Workload.SHARED_CHAT, 60, 5);
        FailedAnswers failures = FailedAnswers.of(0.2, 5);
        var spec = new Simulation.RunSpec(SimGrid.slow(), trace, PolicyKind.GRID_SITE_ROUTE, 0.5, 11, 1, failures);

        RunResult result = Simulation.run(spec);

        // A first attempt fails 20% of the time; both attempts 4%.
        assertThat(result.retriedShare()).isCloseTo(0.2, within(0.05));
        assertThat(result.failedShare()).isCloseTo(0.04, within(0.025));
        assertThat(result.failedShare()).isPositive();
        assertThat(Simulation.run(spec)).isEqualTo(result);
    }

    @Test
    void run_sameFailuresForEveryPolicy() {
        Trace trace = TraceGenerator.generate(Workload.ONE_OFF, 200, 5);
        FailedAnswers failures = FailedAnswers.of(0.3, 5);
        List<Double> failed = List.of(PolicyKind.ROUND_ROBIN, PolicyKind.RANDOM, PolicyKind.ORACLE).stream()
                .map(p -> Simulation.run(
                                new Simulation.RunSpec(SimGrid.fast(), trace, p, 0.5, p.ordinal(), 1, failures))
                        .failedShare())
                .toList();

        // One-off sessions have one turn each, so every policy meets the same requests failing twice.
        assertThat(failed).containsOnly(failed.getFirst());
    }
}
