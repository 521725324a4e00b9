package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The prefill a replica sent and a cluster has not worked off: it adds up, drains in real time, never goes below 0. */
class PrefillBacklogTest {
    private static final long SECOND = 1_000_000_000L;
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final ClusterId WEST_A = new ClusterId(new SiteName("west"), "west-a");

    private final PrefillBacklog backlog = new PrefillBacklog();

    @Test
    void sent_addsUp_andDrainsInRealTime() {
        long t0 = 100 * SECOND;
        backlog.sent(EAST_A, 3, t0);
        backlog.sent(EAST_A, 2, t0 + SECOND);

        assertThat(backlog.seconds(EAST_A, t0 + SECOND)).isCloseTo(4, within(1e-9));
        assertThat(backlog.seconds(EAST_A, t0 + 4 * SECOND)).isCloseTo(1, within(1e-9));
        assertThat(backlog.seconds(EAST_A, t0 + 9 * SECOND)).isZero();
        assertThat(backlog.seconds(WEST_A, t0)).as("nothing sent").isZero();
    }

    @Test
    void sent_afterTheBacklogDrained_startsFromNow() {
        long t0 = 5 * SECOND;
        backlog.sent(EAST_A, 1, t0);
        backlog.sent(EAST_A, 2, t0 + 10 * SECOND);

        assertThat(backlog.seconds(EAST_A, t0 + 10 * SECOND)).isCloseTo(2, within(1e-9));
    }

    @Test
    void sent_nothingToCompute_addsNothing() {
        backlog.sent(EAST_A, 0, SECOND);
        backlog.sent(EAST_A, Double.NaN, SECOND);

        assertThat(backlog.seconds(EAST_A, SECOND)).isZero();
    }

    @Test
    void firstToken_leavesWhatWasSentAfterIt() {
        long t0 = 10 * SECOND;
        long first = backlog.sent(EAST_A, 3, t0);
        backlog.sent(EAST_A, 2, t0);
        backlog.sent(EAST_A, 1, t0 + SECOND);
        assertThat(backlog.seconds(EAST_A, t0 + SECOND)).isCloseTo(5, within(1e-9));

        // The estimates were low: the first prompt took 4 s, not 3. What is left is the 3 s sent after it.
        backlog.firstToken(EAST_A, first, t0 + 4 * SECOND);
        assertThat(backlog.seconds(EAST_A, t0 + 4 * SECOND)).isCloseTo(3, within(1e-9));
        assertThat(backlog.seconds(EAST_A, t0 + 6 * SECOND)).isCloseTo(1, within(1e-9));
    }

    @Test
    void firstToken_ofTheLatestRequest_emptiesTheBacklog_evenWhenEstimatesWereHigh() {
        backlog.sent(EAST_A, 4, 0);
        long last = backlog.sent(EAST_A, 4, 0);

        backlog.firstToken(EAST_A, last, 2 * SECOND);
        assertThat(backlog.seconds(EAST_A, 2 * SECOND))
                .as("both prompts are computed")
                .isZero();
        assertThat(backlog.sent(EAST_A, 1, 2 * SECOND)).isEqualTo(9 * SECOND);
        assertThat(backlog.seconds(EAST_A, 2 * SECOND)).isCloseTo(1, within(1e-9));
    }

    @Test
    void firstToken_withoutAMark_orOfAnotherCluster_changesNothing() {
        long mark = backlog.sent(EAST_A, 3, 0);
        assertThat(backlog.sent(EAST_A, 0, 0)).as("nothing to compute: no mark").isEqualTo(-1);

        backlog.firstToken(EAST_A, -1, SECOND);
        backlog.firstToken(WEST_A, mark, SECOND);
        assertThat(backlog.seconds(EAST_A, SECOND)).isCloseTo(2, within(1e-9));
        assertThat(backlog.seconds(WEST_A, SECOND)).isZero();
    }

    @Test
    void retain_forgetsClustersThatLeft() {
        backlog.sent(EAST_A, 5, 0);
        backlog.sent(WEST_A, 5, 0);
        backlog.retain(Set.of(WEST_A));

        assertThat(backlog.seconds(EAST_A, 0)).isZero();
        assertThat(backlog.seconds(WEST_A, 0)).isCloseTo(5, within(1e-9));
    }
}
