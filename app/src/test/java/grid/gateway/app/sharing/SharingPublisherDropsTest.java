package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.StreamEntryID;

/**
 * What {@code grid_prefix_sharing_dropped_total{reason="unsent"}} counts when Redis does not take a batch: the
 * confirmations, drops and sends in it, never the acknowledgements between replicas that ride in the same pipeline;
 * and a confirmation waiting for its peers that Redis did not take is not counted as applied by them.
 */
class SharingPublisherDropsTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");

    private final ManualClock clock = new ManualClock();
    private final SharingMeters meters =
            TestSharingMeters.of(new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1), clock);

    private SharingPublisher publisher(FakeRedis redis) {
        SharingSettings settings = redis.settings("drops-test");
        return new SharingPublisher(
                "00aa",
                settings.stream(),
                RedisEndpoint.of(settings),
                new SharingPublisher.Context(meters, () -> 1_000, () -> 1_000, () -> 0),
                64);
    }

    private static BlockKeys keys(long first) {
        return BlockKeys.copyOf(new long[] {first, first + 1, first + 2}, 3);
    }

    @Test
    @Timeout(20)
    void refusedWrites_onlyTheEntriesCountAsUnsent() throws Exception {
        long before = meters.droppedSoFar(SharingMeters.Dropped.UNSENT);
        try (FakeRedis redis = new FakeRedis(
                "-READONLY You can't write against a read only replica.\r\n".getBytes(StandardCharsets.US_ASCII))) {
            SharingPublisher publisher = publisher(redis);
            oneBatchOfTwoAcknowledgementsAndAConfirmation(publisher);
            Thread thread = Thread.ofVirtual().start(publisher);
            try {
                assertThat(redis.asked("XADD", false, 3)).isTrue();
                // Batches are written in order: the next one's XADD is sent after the one before it was counted.
                publisher.learned(EAST_A, keys(20), true);
                assertThat(redis.asked("XADD", false)).isTrue();
            } finally {
                stop(thread);
            }
        }
        assertThat(meters.droppedSoFar(SharingMeters.Dropped.UNSENT) - before)
                .as("the first batch's confirmation, and the second's once the thread stopped")
                .isBetween(1L, 2L);
    }

    @Test
    void aBatchLostWithItsConnection_onlyTheEntriesCountAsUnsent() throws Exception {
        long before = meters.droppedSoFar(SharingMeters.Dropped.UNSENT);
        try (FakeRedis redis = new FakeRedis(FakeRedis.GARBAGE)) {
            SharingPublisher publisher = publisher(redis);
            oneBatchOfTwoAcknowledgementsAndAConfirmation(publisher);
            Thread thread = Thread.ofVirtual().start(publisher);
            try {
                assertThat(redis.asked("XADD", false)).isTrue();
                // Written on the next connection, which is opened only after the lost batch was counted.
                publisher.learned(EAST_A, keys(20), true);
                assertThat(redis.asked(FakeRedis.CONNECTION, true, 2)).isTrue();
            } finally {
                stop(thread);
            }
        }
        assertThat(meters.droppedSoFar(SharingMeters.Dropped.UNSENT) - before)
                .as("the first batch's confirmation, and the second's once the thread stopped")
                .isBetween(1L, 2L);
    }

    @Test
    @Timeout(20)
    void aConfirmationThatRedisRefused_isNotCountedAsAppliedByThePeers() throws Exception {
        long applied = meters.waitsSoFar(true);
        long notApplied = meters.waitsSoFar(false);
        try (FakeRedis redis = new FakeRedis(
                "-READONLY You can't write against a read only replica.\r\n".getBytes(StandardCharsets.US_ASCII))) {
            SharingPublisher publisher = publisher(redis);
            PeerAcks peers = new PeerAcks();
            peers.reading(true);
            peers.heard("00cc", new StreamEntryID(1, 1)); // a live peer
            publisher.confirmations(peers, Duration.ofSeconds(30));
            Thread thread = Thread.ofVirtual().start(publisher);
            try {
                publisher.learned(EAST_A, keys(40), true); // returns once the write was refused, not 30 s later
            } finally {
                stop(thread);
            }
        }
        assertThat(meters.waitsSoFar(true) - applied).as("applied").isZero();
        assertThat(meters.waitsSoFar(false) - notApplied).as("not applied").isEqualTo(1);
    }

    /** Queued before the publishing thread starts, so that it takes them as one batch. */
    private static void oneBatchOfTwoAcknowledgementsAndAConfirmation(SharingPublisher publisher) {
        publisher.ack(new StreamEntryID(1, 1));
        publisher.ack(new StreamEntryID(1, 2));
        publisher.learned(EAST_A, keys(10), true);
    }

    private static void stop(Thread thread) throws InterruptedException {
        thread.interrupt();
        thread.join();
    }
}
