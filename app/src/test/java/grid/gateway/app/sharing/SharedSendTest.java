package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.time.ManualClock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A send in the stream ({@code sharing.share_backlog}): the cluster's digest, the time and the prefill seconds only;
 * it round-trips, bad data never parses, an old replica's parser refuses it, and it joins the peer's backlog.
 */
class SharedSendTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");

    private static Map<String, String> sendFields() {
        return SharedEntry.sent("00ff", EAST_A, 1_700_000_000_123L, 2.5).fields();
    }

    @Test
    void sent_roundTrips_noKeysNoClusterName() {
        Map<String, String> fields = sendFields();
        assertThat(fields).containsOnlyKeys("r", "s", "c", "o", "t", "w").containsEntry("o", "p");
        assertThat(fields).containsEntry("w", "2500000");
        assertThat(fields.values()).noneMatch(v -> v.contains("east-a"));

        SharedEntry back = SharedEntry.parse(fields).orElseThrow();
        assertThat(back.isSend()).isTrue();
        assertThat(back.prefillSeconds()).isEqualTo(2.5);
        assertThat(back.atMillis()).isEqualTo(1_700_000_000_123L);
        assertThat(back.keys()).isEmpty();
        assertThat(back.clusterKey())
                .isEqualTo(SharedEntry.of("x", EAST_A, true, 0, new long[] {1}).clusterKey());
        assertThat(SharedEntry.of("x", EAST_A, true, 0, new long[] {1}).isSend())
                .isFalse();
    }

    @Test
    void sent_tinyOrHugeWork_clampedToWhatParses() {
        assertThat(SharedEntry.parse(SharedEntry.sent("ab", EAST_A, 5, 1e-9).fields())
                        .orElseThrow()
                        .prefillSeconds())
                .isEqualTo(1e-6);
        assertThat(SharedEntry.parse(SharedEntry.sent("ab", EAST_A, 5, 1e12).fields()))
                .isPresent();
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "w,''",
        "w,0",
        "w,-5",
        "w,1.5",
        "w,1e6",
        "w,9999999999999",
        "o,c",
        "o,d",
        "o,x",
        "t,-1",
        "c,123",
        "r,NOT-HEX",
    })
    void parse_badSend_refused(String field, String value) {
        Map<String, String> fields = new HashMap<>(sendFields());
        fields.put(field, value);
        assertThat(SharedEntry.parse(fields)).isEmpty();
    }

    @Test
    void parse_sendWithKeys_orConfirmationWithWork_refused() {
        Map<String, String> both = new HashMap<>(sendFields());
        both.put("k", "AAAAAAAAAAc=");
        assertThat(SharedEntry.parse(both)).isEmpty();

        Map<String, String> confirmation = new HashMap<>(
                SharedEntry.of("ab", EAST_A, true, 5, new long[] {7}).fields());
        confirmation.put("o", "p");
        assertThat(SharedEntry.parse(confirmation)).as("a send without w").isEmpty();
        confirmation.remove("k");
        confirmation.put("w", "100");
        assertThat(SharedEntry.parse(confirmation)).isPresent();
    }

    @Test
    void isSend_readFromTheOpWithoutDecoding() {
        assertThat(SharedEntry.isSend(raw(sendFields()))).isTrue();
        assertThat(SharedEntry.isSend(raw(
                        SharedEntry.of("ab", EAST_A, true, 5, new long[] {7}).fields())))
                .isFalse();
        assertThat(SharedEntry.isSend(raw(Map.of("x", "y")))).isFalse();
    }

    @Test
    void publisher_sendsTravelAsTheyAre_andDoNotDisturbTheNewTail() {
        SharingPublisher publisher = new SharingPublisher(
                "00ff", "test", null, new SharingPublisher.Context(null, () -> 42, () -> 1000, () -> 150_000), 16);
        SharedEntry confirm = SharedEntry.of("00ff", EAST_A, true, 0, new long[] {1, 2, 3});
        assertThat(publisher.news(confirm)).isSameAs(confirm);

        publisher.sent(EAST_A, 0.75);
        SharedEntry send = publisher.next();
        assertThat(send.isSend()).isTrue();
        assertThat(send.atMillis()).isEqualTo(42);
        assertThat(publisher.news(send)).isSameAs(send);
        assertThat(publisher.news(SharedEntry.of("00ff", EAST_A, true, 10, new long[] {1, 2, 3})))
                .as("the confirmation's keys still count as sent")
                .isNull();
    }

    @Test
    void peerSends_joinTheBacklog_fromWhenTheyWereSent() {
        ManualClock clock = new ManualClock();
        PrefillBacklog backlog = new PrefillBacklog();
        List<Double> offered = new ArrayList<>();
        backlog.sharing((cluster, seconds) -> offered.add(seconds));
        PeerSends sends = new PeerSends(backlog, clock);

        assertThat(sends.apply(SharedEntry.sent("ab", EAST_A, 0, 3), EAST_A, 1_000))
                .isTrue();
        assertThat(backlog.seconds(EAST_A, clock.nanoTime())).isCloseTo(2, within(1e-9));
        assertThat(offered).as("a peer's send is not published again").isEmpty();
    }

    @Test
    void peerSends_tooOld_orNotASend_notApplied() {
        ManualClock clock = new ManualClock();
        PrefillBacklog backlog = new PrefillBacklog();
        PeerSends sends = new PeerSends(backlog, clock);

        assertThat(sends.apply(SharedEntry.sent("ab", EAST_A, 0, 500), EAST_A, PeerSends.MAX_AGE_MILLIS + 1))
                .isFalse();
        assertThat(sends.apply(SharedEntry.of("ab", EAST_A, true, 0, new long[] {7}), EAST_A, 0))
                .isFalse();
        assertThat(backlog.seconds(EAST_A, clock.nanoTime())).isZero();
        assertThat(sends.apply(SharedEntry.sent("ab", EAST_A, 0, 500), EAST_A, PeerSends.MAX_AGE_MILLIS))
                .isTrue();
    }

    private static Map<byte[], byte[]> raw(Map<String, String> fields) {
        Map<byte[], byte[]> raw = new LinkedHashMap<>();
        fields.forEach((name, value) -> raw.put(name.getBytes(UTF_8), value.getBytes(UTF_8)));
        return raw;
    }
}
