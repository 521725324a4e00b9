package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Peers' sends in a replica's prefill backlog ({@code sharing.share_backlog}): they add up with its own from when they
 * were sent, a first token leaves what anyone sent after its mark, and only own sends are offered to the peers.
 */
class PrefillBacklogPeerTest {
    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");

    private final PrefillBacklog backlog = new PrefillBacklog();

    @Test
    void peerSent_addsUpWithOwnSends() {
        long t0 = 100 * SECOND;
        backlog.sent(EAST_A, 3, t0);
        assertThat(backlog.peerSent(EAST_A, 2, 0, t0)).isTrue();

        assertThat(backlog.seconds(EAST_A, t0)).isCloseTo(5, within(1e-9));
        assertThat(backlog.seconds(EAST_A, t0 + 4 * SECOND)).isCloseTo(1, within(1e-9));
    }

    @Test
    void peerSent_drainsFromWhenThePeerSentIt() {
        long now = 50 * SECOND;
        backlog.peerSent(EAST_A, 3, SECOND, now);

        assertThat(backlog.seconds(EAST_A, now))
                .as("a second of it already worked off")
                .isCloseTo(2, within(1e-9));
    }

    @Test
    void peerSent_olderThanItsWork_leavesNothing_butAnOwnSendAfterwardStartsFromNow() {
        long now = 50 * SECOND;
        backlog.peerSent(EAST_A, 1, 5 * SECOND, now);
        assertThat(backlog.seconds(EAST_A, now)).isZero();

        backlog.sent(EAST_A, 2, now);
        assertThat(backlog.seconds(EAST_A, now)).isCloseTo(2, within(1e-9));
    }

    @Test
    void peerSent_behindAnOwnBacklog_queuesAfterIt() {
        long t0 = 10 * SECOND;
        backlog.sent(EAST_A, 4, t0);
        // Sent by the peer 1 s ago, when this line was already busy: it waits for the 4 s, whoever sent it first.
        backlog.peerSent(EAST_A, 2, SECOND, t0 + 2 * SECOND);

        assertThat(backlog.seconds(EAST_A, t0 + 2 * SECOND)).isCloseTo(4, within(1e-9));
    }

    @Test
    void peerSent_aNegativeAge_countsAsNow() {
        backlog.peerSent(EAST_A, 2, -3 * SECOND, 20 * SECOND);

        assertThat(backlog.seconds(EAST_A, 20 * SECOND)).isCloseTo(2, within(1e-9));
    }

    @Test
    void peerSent_noWork_addsNothing() {
        assertThat(backlog.peerSent(EAST_A, 0, 0, SECOND)).isFalse();
        assertThat(backlog.peerSent(EAST_A, Double.NaN, 0, SECOND)).isFalse();
        assertThat(backlog.peerSent(EAST_A, -1, 0, SECOND)).isFalse();

        assertThat(backlog.seconds(EAST_A, SECOND)).isZero();
    }

    @Test
    void firstToken_leavesThePeersWorkSentAfterTheMark_andNotWhatWasSentBefore() {
        long t0 = 10 * SECOND;
        backlog.peerSent(EAST_A, 5, 0, t0); // before my request: in my mark, computed before my prompt
        long mine = backlog.sent(EAST_A, 1, t0);
        backlog.peerSent(EAST_A, 3, 0, t0 + SECOND); // after my request
        backlog.sent(EAST_A, 2, t0 + SECOND);

        // My prompt's first token came at 8 s (the estimates were low): left is the 3 + 2 s sent after it.
        backlog.firstToken(EAST_A, mine, t0 + 8 * SECOND);
        assertThat(backlog.seconds(EAST_A, t0 + 8 * SECOND)).isCloseTo(5, within(1e-9));
    }

    @Test
    void firstToken_ofMyLatest_leavesOnlyPeersWorkArrivedSince() {
        long t0 = 10 * SECOND;
        long mine = backlog.sent(EAST_A, 2, t0);
        backlog.peerSent(EAST_A, 4, 10 * MS, t0 + 20 * MS);

        backlog.firstToken(EAST_A, mine, t0 + 2 * SECOND);
        assertThat(backlog.seconds(EAST_A, t0 + 2 * SECOND)).isCloseTo(4, within(1e-9));
    }

    @Test
    void sharing_offersOwnSendsOnly() {
        List<Double> offered = new ArrayList<>();
        backlog.sharing((cluster, seconds) -> offered.add(seconds));

        backlog.sent(EAST_A, 1.5, 0);
        backlog.sent(EAST_A, 0, 0);
        backlog.peerSent(EAST_A, 4, 0, 0);

        assertThat(offered)
                .as("the peer's send is not offered again; nothing to compute is not offered")
                .containsExactly(1.5);
    }
}
