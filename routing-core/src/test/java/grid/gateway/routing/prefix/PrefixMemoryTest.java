package grid.gateway.routing.prefix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The seed's "What it remembers" and "Settings", sentence by sentence. */
class PrefixMemoryTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final ClusterId WEST_A = new ClusterId(new SiteName("west"), "west-a");

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = memory(settings(16_384, 600));

    private PrefixMemory memory(PrefixAffinitySettings settings) {
        PrefixMemory memory = new PrefixMemory(settings, clock, 0x5A17L);
        memory.reconfigure(Set.of(EAST_A, WEST_A), settings);
        return memory;
    }

    private static PrefixAffinitySettings settings(int capacity, long ttlSeconds) {
        return new PrefixAffinitySettings(capacity, Duration.ofSeconds(ttlSeconds), 10_000, 2);
    }

    /** Keys {@code from}, {@code from + 1}, ... ({@code count} of them). */
    static BlockKeys keys(long from, int count) {
        return BlockKeys.copyOf(LongStream.range(from, from + count).toArray(), count);
    }

    @AfterEach
    void invariantsHold() {
        for (ClusterId cluster : memory.clusters()) {
            memory.lru(cluster).checkInvariants();
        }
    }

    @Test
    void run_beforeConfirmation_zero() {
        // "A block counts toward a match only once the site answers with success."
        assertThat(memory.run(EAST_A, keys(1, 10))).isZero();
        memory.confirm(EAST_A, keys(1, 10));
        assertThat(memory.run(EAST_A, keys(1, 10))).isEqualTo(10);
    }

    @Test
    void run_countsLeadingBlocksInOrderOnly() {
        memory.confirm(EAST_A, keys(1, 10));
        assertThat(memory.run(EAST_A, keys(1, 20))).isEqualTo(10);
        // A gap ends the run even if later blocks are held.
        memory.drop(EAST_A, keys(4, 1));
        assertThat(memory.run(EAST_A, keys(1, 10))).isEqualTo(3);
    }

    @Test
    void drop_afterErrorAnswer_forgetsTheBlocks() {
        // "... and the gateway drops it when the site answers 429 or 5xx."
        memory.confirm(EAST_A, keys(1, 10));
        memory.drop(EAST_A, keys(1, 10));
        assertThat(memory.run(EAST_A, keys(1, 10))).isZero();
        assertThat(memory.entries(EAST_A)).isZero();
    }

    @Test
    void confirm_oneCluster_neverEvictsAnother() {
        // "Each backend cluster has its own LRU, so traffic to one cluster cannot evict another cluster's entries."
        PrefixMemory small = memory(settings(8, 600));
        small.confirm(WEST_A, keys(1, 8));
        for (int i = 0; i < 100; i++) {
            small.confirm(EAST_A, keys(1000 + i * 8L, 8));
        }
        assertThat(small.run(WEST_A, keys(1, 8))).isEqualTo(8);
    }

    @Test
    void confirm_capacityPlusOneSequential_evictsTheFirst() {
        PrefixMemory small = memory(settings(4, 600));
        for (long key = 1; key <= 5; key++) {
            small.confirm(EAST_A, keys(key, 1));
        }
        assertThat(small.run(EAST_A, keys(1, 1))).isZero();
        assertThat(small.run(EAST_A, keys(2, 4))).isEqualTo(4);
        assertThat(small.entries(EAST_A)).isEqualTo(4);
    }

    @Test
    void run_lookupDoesNotRefreshRecency() {
        PrefixMemory small = memory(settings(3, 600));
        small.confirm(EAST_A, keys(1, 1));
        small.confirm(EAST_A, keys(2, 1));
        small.confirm(EAST_A, keys(3, 1));
        assertThat(small.run(EAST_A, keys(1, 1))).isEqualTo(1); // a lookup of the oldest
        small.confirm(EAST_A, keys(4, 1));
        // Key 1 was looked up, not confirmed, so it is still the least recent and goes first.
        assertThat(small.run(EAST_A, keys(1, 1))).isZero();
        assertThat(small.run(EAST_A, keys(2, 1))).isEqualTo(1);
    }

    @Test
    void confirm_reconfirmation_refreshesRecency() {
        PrefixMemory small = memory(settings(3, 600));
        small.confirm(EAST_A, keys(1, 1));
        small.confirm(EAST_A, keys(2, 1));
        small.confirm(EAST_A, keys(3, 1));
        small.confirm(EAST_A, keys(1, 1));
        small.confirm(EAST_A, keys(4, 1));
        assertThat(small.run(EAST_A, keys(1, 1))).isEqualTo(1);
        assertThat(small.run(EAST_A, keys(2, 1))).isZero();
    }

    @Test
    void confirm_tailFirst_leadingBlocksAreMostRecent() {
        PrefixMemory small = memory(settings(10, 600));
        small.confirm(EAST_A, keys(1, 10));
        assertThat(small.lru(EAST_A).keysInOrder()).containsExactly(10, 9, 8, 7, 6, 5, 4, 3, 2, 1);
        small.confirm(EAST_A, keys(100, 3));
        // Pressure evicts the request's tail blocks first, so its leading run survives.
        assertThat(small.run(EAST_A, keys(1, 10))).isEqualTo(7);
    }

    @Test
    void run_afterTtl_expired() {
        memory.confirm(EAST_A, keys(1, 4));
        clock.advance(Duration.ofSeconds(600).minusNanos(1));
        assertThat(memory.run(EAST_A, keys(1, 4))).isEqualTo(4);
        clock.advance(Duration.ofNanos(1));
        assertThat(memory.run(EAST_A, keys(1, 4))).isZero();
    }

    @Test
    void expire_removesExpiredEntries_acrossClockWrap() {
        // The ManualClock starts 65 s before the long range wraps; deadlines lie past the wrap.
        memory.confirm(EAST_A, keys(1, 4));
        clock.advanceSeconds(601);
        memory.expire();
        assertThat(memory.entries(EAST_A)).isZero();
    }

    @Test
    void retention_engineSizedMemory_isTheAgeOfItsLeastRecentEntryOnceFull() {
        PrefixAffinitySettings auto =
                settings(16_384, 600).with(new PrefixAffinitySettings.Calibrated(true, false, false), false);
        PrefixMemory sized = memory(auto);
        sized.measuredCapacity(EAST_A, 8);
        sized.confirm(EAST_A, keys(0, 4));
        clock.advanceSeconds(30);
        assertThat(sized.retentionNanos(EAST_A)).as("room left").isEqualTo(Long.MAX_VALUE);

        sized.confirm(EAST_A, keys(100, 4));
        clock.advanceSeconds(12);
        assertThat(sized.retentionNanos(EAST_A))
                .as("full: the next entry evicts one confirmed 42 s ago")
                .isEqualTo(Duration.ofSeconds(42).toNanos());
        assertThat(sized.retentionNanos(WEST_A))
                .as("never measured: its capacity stands for no engine")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void retention_configuredCapacity_saysNothingOfTheEngines() {
        PrefixMemory small = memory(settings(8, 600));
        small.confirm(EAST_A, keys(0, 8));
        clock.advanceSeconds(30);

        assertThat(small.retentionNanos(EAST_A)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void reconfigure_shrinking_evictsLeastRecent() {
        PrefixMemory small = memory(settings(10, 600));
        for (long key = 1; key <= 10; key++) {
            small.confirm(EAST_A, keys(key, 1));
        }
        small.reconfigure(Set.of(EAST_A, WEST_A), settings(3, 600));
        assertThat(small.lru(EAST_A).keysInOrder()).containsExactly(8, 9, 10);
    }

    @Test
    void reconfigure_growing_keepsEntriesAndNewClustersGetCurrentCapacity() {
        PrefixMemory small = memory(settings(2, 600));
        small.confirm(EAST_A, keys(1, 2));
        ClusterId north = new ClusterId(new SiteName("north"), "north-a");
        small.reconfigure(Set.of(EAST_A, north), settings(5, 600));
        small.confirm(north, keys(10, 6));
        small.confirm(EAST_A, keys(20, 3));
        assertThat(small.entries(north)).isEqualTo(5);
        assertThat(small.run(EAST_A, keys(1, 2))).isEqualTo(2);
    }

    @Test
    void reconfigure_ttlChange_leavesExistingDeadlines() {
        // "TTL changes apply to subsequent confirmations; existing deadlines remain in place."
        memory.confirm(EAST_A, keys(1, 1));
        memory.reconfigure(Set.of(EAST_A, WEST_A), settings(16_384, 60));
        memory.confirm(EAST_A, keys(2, 1));
        clock.advanceSeconds(61);
        assertThat(memory.run(EAST_A, keys(1, 1))).isEqualTo(1);
        assertThat(memory.run(EAST_A, keys(2, 1))).isZero();
    }

    @Test
    void reconfigure_clusterRemoved_freesItsMemory() {
        memory.confirm(WEST_A, keys(1, 10));
        memory.reconfigure(Set.of(EAST_A), settings(16_384, 600));
        assertThat(memory.clusters()).containsExactly(EAST_A);
        assertThat(memory.entries(WEST_A)).isZero();
        memory.confirm(WEST_A, keys(1, 10)); // a late answer from a removed cluster is ignored
        assertThat(memory.clusters()).containsExactly(EAST_A);
    }

    @Test
    void settings_ttlBeyondMonotonicClock_refused() {
        // "The TTL must fit the platform's monotonic clock."
        long maxSeconds = Duration.ofNanos(Long.MAX_VALUE).toSeconds();
        assertThat(settings(1, maxSeconds).ttlNanos()).isPositive();
        assertThatThrownBy(() -> settings(1, maxSeconds + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ttl_secs: " + (maxSeconds + 1));
    }

    @Test
    void settings_defaults_areTheSeeds() {
        assertThat(PrefixAffinitySettings.defaults())
                .isEqualTo(new PrefixAffinitySettings(16_384, Duration.ofSeconds(600), 10_000, 2));
        assertThatThrownBy(() -> settings(0, 600)).hasMessage("capacity: 0 (expected: > 0)");
        assertThatThrownBy(() -> settings(1, 0)).hasMessage("ttl_secs: 0 (expected: > 0)");
    }
}
