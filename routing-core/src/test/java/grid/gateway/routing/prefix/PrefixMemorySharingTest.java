package grid.gateway.routing.prefix;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What a replica offers its peers, and how it applies theirs (the same semantics as its own). */
class PrefixMemorySharingTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final ClusterId WEST_A = new ClusterId(new SiteName("west"), "west-a");
    private static final ClusterId UNKNOWN = new ClusterId(new SiteName("east"), "east-z");
    private static final PrefixAffinitySettings SETTINGS =
            new PrefixAffinitySettings(4, Duration.ofSeconds(600), 10_000, 2);

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(SETTINGS, clock, 0x5A17L);
    private final List<String> offered = new ArrayList<>();

    PrefixMemorySharingTest() {
        memory.reconfigure(Set.of(EAST_A, WEST_A), SETTINGS);
        memory.sharing((cluster, keys, confirmed) -> offered.add(cluster.name() + (confirmed ? " +" : " -") + keys));
    }

    private static BlockKeys keys(long from, int count) {
        return BlockKeys.copyOf(LongStream.range(from, from + count).toArray(), count);
    }

    @AfterEach
    void invariantsHold() {
        memory.clusters().forEach(c -> memory.lru(c).checkInvariants());
    }

    @Test
    void ownConfirmAndDrop_offeredOnce_peerEntriesNeverOfferedAgain() {
        memory.confirm(EAST_A, keys(1, 2));
        memory.drop(WEST_A, keys(5, 1));
        memory.applyPeer(EAST_A, keys(10, 2), true, 0);
        memory.applyPeer(EAST_A, keys(10, 2), false, 0);
        assertThat(offered).containsExactly("east-a +" + keys(1, 2), "west-a -" + keys(5, 1));
    }

    @Test
    void unknownClusterOrEmptyKeys_notOffered_notApplied() {
        memory.confirm(UNKNOWN, keys(1, 2));
        memory.confirm(EAST_A, BlockKeys.none());
        assertThat(offered).isEmpty();
        assertThat(memory.applyPeer(UNKNOWN, keys(1, 2), true, 0)).isFalse();
        assertThat(memory.applyPeer(EAST_A, BlockKeys.none(), true, 0)).isFalse();
        assertThat(memory.clusters()).containsExactlyInAnyOrder(EAST_A, WEST_A);
    }

    @Test
    void peerConfirm_countsLikeOwn_deadlineFromItsConfirmationTime() {
        assertThat(memory.applyPeer(
                        EAST_A, keys(1, 3), true, Duration.ofSeconds(100).toNanos()))
                .isTrue();
        assertThat(memory.run(EAST_A, keys(1, 3))).isEqualTo(3);
        clock.advance(Duration.ofSeconds(499));
        assertThat(memory.run(EAST_A, keys(1, 3))).isEqualTo(3);
        // Confirmed 100 s before it arrived: it ends 600 s after that confirmation, not 600 s after arrival.
        clock.advance(Duration.ofSeconds(1));
        assertThat(memory.run(EAST_A, keys(1, 3))).isZero();
    }

    @Test
    void peerConfirm_pastItsTtl_notApplied_negativeSkewCountsAsNow() {
        assertThat(memory.applyPeer(
                        EAST_A, keys(1, 1), true, Duration.ofSeconds(600).toNanos()))
                .isFalse();
        assertThat(memory.entries(EAST_A)).isZero();
        assertThat(memory.applyPeer(
                        EAST_A, keys(1, 1), true, -Duration.ofSeconds(30).toNanos()))
                .isTrue();
        clock.advance(Duration.ofSeconds(599));
        assertThat(memory.run(EAST_A, keys(1, 1))).isEqualTo(1);
    }

    @Test
    void peerConfirm_tailFirstAndCapacity_asOwn() {
        memory.applyPeer(EAST_A, keys(1, 4), true, 0);
        // Capacity 4: a peer's one new key evicts the least recent, which tail-first order made the last block.
        memory.applyPeer(EAST_A, keys(100, 1), true, 0);
        assertThat(memory.run(EAST_A, keys(1, 4))).isEqualTo(3);
        assertThat(memory.lru(EAST_A).keysInOrder()).containsExactly(3, 2, 1, 100);
    }

    @Test
    void peerDrop_forgetsOwnConfirmation_peerConfirmAfterDropRemembers() {
        memory.confirm(EAST_A, keys(1, 3));
        assertThat(memory.applyPeer(EAST_A, keys(1, 3), false, 0)).isTrue();
        assertThat(memory.run(EAST_A, keys(1, 3))).isZero();
        memory.applyPeer(EAST_A, keys(1, 3), true, 0);
        assertThat(memory.run(EAST_A, keys(1, 3))).isEqualTo(3);
    }
}
