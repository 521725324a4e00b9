package grid.gateway.routing.prefix;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link RecentlyShared}: a conversation's next turn sends only its new tail; a prefix comes back in full once its
 * oldest sending is a refresh interval old, after a drop, or when its anchor's slot was taken; and a multi-turn
 * workload's keys per published entry.
 */
class RecentlySharedTest {
    private static final String EAST_A = "east/aaaaaaaa";
    private static final String EAST_B = "east/bbbbbbbb";
    private static final long REFRESH = 150_000;

    private final RecentlyShared recent = new RecentlyShared();

    /** Keys 1..n of one conversation: each turn's keys extend the previous turn's, as chained block keys do. */
    private static long[] turn(long conversation, int blocks) {
        return LongStream.rangeClosed(1, blocks)
                .map(i -> conversation * 1_000_003L + i)
                .toArray();
    }

    /** What the publisher does: the leading run already sent, the rest recorded as sent now; returns keys sent. */
    private int send(String cluster, long[] keys, long now) {
        RecentlyShared.Run run = recent.sentRun(cluster, keys, now, REFRESH);
        if (run.length() < keys.length) {
            recent.published(cluster, keys, run, now);
        }
        return keys.length - run.length();
    }

    @Test
    void nextTurn_sendsOnlyItsNewTail() {
        assertThat(send(EAST_A, turn(1, 40), 0)).isEqualTo(40);
        assertThat(send(EAST_A, turn(1, 48), 10_000)).isEqualTo(8);
        assertThat(send(EAST_A, turn(1, 48), 20_000)).as("nothing new").isZero();
        assertThat(send(EAST_A, turn(1, 20), 20_000)).as("a shorter prefix").isEqualTo(20);
        assertThat(send(EAST_B, turn(1, 48), 20_000))
                .as("another cluster learns it in full")
                .isEqualTo(48);
        assertThat(send(EAST_A, turn(2, 48), 20_000)).as("another conversation").isEqualTo(48);
    }

    @Test
    void aNextTurnThatRewritesTheLastBlock_stillFindsAnEarlierAnchor() {
        send(EAST_A, turn(1, 40), 0);
        long[] rewritten = turn(1, 48);
        rewritten[39] = -7; // block 40 ends differently now: key 40 and every later key differ
        for (int i = 40; i < rewritten.length; i++) {
            rewritten[i] = -rewritten[i];
        }
        assertThat(send(EAST_A, rewritten, 1)).as("from the anchor at key 32").isEqualTo(16);
    }

    @Test
    void aPrefixWhoseOldestSendingIsARefreshOld_isSentAgainInFull() {
        send(EAST_A, turn(1, 40), 0);
        send(EAST_A, turn(1, 48), 100_000); // only keys 41..48 went out: the prefix is still as old as 0
        assertThat(recent.sentRun(EAST_A, turn(1, 48), REFRESH - 1, REFRESH).length())
                .isEqualTo(48);
        assertThat(recent.sentRun(EAST_A, turn(1, 48), REFRESH, REFRESH).length())
                .isZero();
        assertThat(send(EAST_A, turn(1, 56), REFRESH)).isEqualTo(56);
        assertThat(send(EAST_A, turn(1, 56), 2 * REFRESH - 1))
                .as("refreshed by the full sending")
                .isZero();
    }

    @Test
    void drop_forgetsTheCluster_soLongerPrefixesAreSentInFull() {
        send(EAST_A, turn(1, 48), 0);
        send(EAST_B, turn(1, 48), 0);
        recent.dropped(EAST_A); // keys 1..40 dropped: prefix 1..48 holds them
        assertThat(send(EAST_A, turn(1, 48), 1)).isEqualTo(48);
        assertThat(send(EAST_B, turn(1, 48), 1)).isZero();
        recent.retain(Set.of(EAST_A));
        assertThat(send(EAST_B, turn(1, 48), 2))
                .as("a cluster forgotten by retain")
                .isEqualTo(48);
    }

    @Test
    void aTakenSlot_isSentAgain_neverWithheld() {
        SplittableRandom random = new SplittableRandom(19);
        long[] first = random.longs(8).toArray();
        send(EAST_A, first, 0);
        for (int i = 0; i < RecentlyShared.SLOTS * 4; i++) {
            send(EAST_A, random.longs(1).toArray(), 1);
        }
        assertThat(recent.sentRun(EAST_A, first, 2, REFRESH).length()).isZero();
        // Keys never sent are never reported as sent, whatever the table holds.
        assertThat(recent.sentRun(EAST_A, random.longs(512).toArray(), 2, REFRESH)
                        .length())
                .isZero();
    }

    /**
     * The workload docs/performance-notes.md reports: 200 conversations of 8 turns each on one cluster, each turn adding 64 blocks
     * (512 at the last), a turn every 25 s per conversation, the default TTL's refresh interval (150 s). Keys per
     * published entry: 288 in full; as the new tail, 64 a turn and the whole prompt once its first sending is 150 s old.
     */
    @Test
    void multiTurnWorkload_keysPerEntry() {
        long full = 0;
        long sent = 0;
        int entries = 0;
        for (int turnIndex = 1; turnIndex <= 8; turnIndex++) {
            for (int conversation = 0; conversation < 200; conversation++) {
                long[] keys = turn(conversation, 64 * turnIndex);
                full += keys.length;
                sent += send(EAST_A, keys, turnIndex * 25_000L + conversation);
                entries++;
            }
        }
        double fullPerEntry = (double) full / entries;
        double sentPerEntry = (double) sent / entries;
        assertThat(fullPerEntry).isEqualTo(288.0);
        // Turn 8 (at 200 s) finds its prefix first sent at 25 s: stale, so it goes in full (512); turns 2–7 send 64,
        // a little more where an anchor's slot was taken by another conversation's (then from an earlier anchor).
        assertThat(sentPerEntry).isBetween((64.0 * 7 + 512) / 8, 150.0);
        System.out.printf("multi-turn workload: %.1f keys an entry in full, %.1f sent%n", fullPerEntry, sentPerEntry);
    }
}
