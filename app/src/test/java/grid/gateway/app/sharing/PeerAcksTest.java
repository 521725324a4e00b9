package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.StreamEntryID;

/**
 * Waiting for the peers' acknowledgements ({@code confirm_wait_ms}): a confirmation waits until every live peer applied
 * it, a peer that does not answer in time stops being waited for until it acknowledges again, and acknowledgements
 * travel in the stream as well-formed entries only.
 */
class PeerAcksTest {
    private static final StreamEntryID ENTRY = new StreamEntryID(1_000, 5);

    private final PeerAcks acks = new PeerAcks();

    private static long in(Duration wait) {
        return System.nanoTime() + wait.toNanos();
    }

    @Test
    void await_everyLivePeerAppliedIt_true() throws Exception {
        acks.reading(true);
        acks.heard("b", new StreamEntryID(1_000, 5));
        acks.heard("c", new StreamEntryID(1_001, 0));

        assertThat(acks.await(ENTRY, in(Duration.ZERO))).isTrue();
    }

    @Test
    void peersThatStoppedAnswering_forgotten_theirIdsDoNotPileUp() throws Exception {
        acks.reading(true);
        // A replica restarted a thousand times, under a new id each time, its old ids never heard again.
        for (int start = 0; start < 1_000; start++) {
            acks.heard("replica-" + start, new StreamEntryID(999, 0));
            assertThat(acks.await(ENTRY, in(Duration.ZERO))).isFalse();
        }

        assertThat(acks.live()).isEmpty();
        assertThat(acks.remembered()).as("peers remembered").isZero();
        acks.heard("replica-999", ENTRY);
        assertThat(acks.await(ENTRY, in(Duration.ZERO)))
                .as("heard again, waited for again")
                .isTrue();
        assertThat(acks.live()).containsExactly("replica-999");
    }

    @Test
    void await_noPeerKnown_trueAtOnce() throws Exception {
        acks.reading(true);

        assertThat(acks.await(ENTRY, in(Duration.ZERO))).isTrue();
    }

    @Test
    void await_wokenByTheAcknowledgement() throws Exception {
        acks.reading(true);
        acks.heard("b", new StreamEntryID(999, 0));
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
            try {
                return acks.await(ENTRY, in(Duration.ofSeconds(30)));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });

        acks.heard("b", ENTRY);

        assertThat(waited.join()).isTrue();
    }

    @Test
    void await_aPeerShortOfItAtTheDeadline_falseAndNoLongerWaitedFor_untilItAcknowledgesAgain() throws Exception {
        acks.reading(true);
        acks.heard("b", new StreamEntryID(999, 0));
        acks.heard("c", ENTRY);

        assertThat(acks.await(ENTRY, in(Duration.ZERO))).isFalse();
        assertThat(acks.live()).containsExactly("c");
        assertThat(acks.await(new StreamEntryID(1_000, 5), in(Duration.ZERO))).isTrue();
        acks.heard("b", new StreamEntryID(1_000, 1));
        assertThat(acks.live()).containsExactlyInAnyOrder("b", "c");
    }

    @Test
    void await_notReading_doesNotWait() throws Exception {
        acks.heard("b", new StreamEntryID(1, 0));

        assertThat(acks.await(ENTRY, in(Duration.ofSeconds(30)))).isFalse();
    }

    private static Map<byte[], byte[]> raw(Map<String, String> fields) {
        Map<byte[], byte[]> raw = new IdentityHashMap<>();
        fields.forEach((name, value) -> raw.put(name.getBytes(UTF_8), value.getBytes(UTF_8)));
        return raw;
    }

    @Test
    void ackFields_roundTrip_andOnlyAcknowledgementsParse() {
        Map<byte[], byte[]> ack = raw(SharedEntry.ackFields("00ff", ENTRY, 1_700_000_000_000L));

        assertThat(SharedEntry.isAck(ack)).isTrue();
        assertThat(SharedEntry.parseAck(ack)).contains(new SharedEntry.Ack("00ff", ENTRY));
        Map<byte[], byte[]> confirmation =
                raw(SharedEntry.of("00ff", new ClusterId(new SiteName("east"), "a"), true, 1, new long[] {7})
                        .fields());
        assertThat(SharedEntry.isAck(confirmation)).isFalse();
        assertThat(SharedEntry.parseAck(confirmation)).isEmpty();
        assertThat(SharedEntry.parseAck(raw(Map.of("r", "00ff", "o", "a", "i", "1-x", "t", "5"))))
                .isEmpty();
        assertThat(SharedEntry.parseAck(raw(Map.of("r", "ZZ", "o", "a", "i", "1-2", "t", "5"))))
                .isEmpty();
        assertThat(SharedEntry.parseAck(raw(Map.of("r", "00ff", "o", "a", "i", "1-2", "t", "5", "k", "x"))))
                .isEmpty();
    }
}
