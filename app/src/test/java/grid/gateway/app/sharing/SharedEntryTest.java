package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What travels in the stream: hashes and a cluster digest only, and bad data never parses. */
class SharedEntryTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");

    @Test
    void fields_roundTrip_keysInOrder_noClusterNameNoText() {
        long[] keys = {1, -1, Long.MIN_VALUE, 0x0123_4567_89AB_CDEFL};
        SharedEntry entry = SharedEntry.of("00ff", EAST_A, true, 1_700_000_000_123L, keys);

        Map<String, String> fields = entry.fields();
        assertThat(fields).containsOnlyKeys("r", "s", "c", "o", "t", "k");
        assertThat(fields.values()).noneMatch(v -> v.contains("east-a"));
        SharedEntry back = SharedEntry.parse(fields).orElseThrow();
        assertThat(back.keys()).containsExactly(keys);
        assertThat(back.clusterKey()).isEqualTo(entry.clusterKey());
        assertThat(back.confirmed()).isTrue();
        assertThat(back.atMillis()).isEqualTo(1_700_000_000_123L);
        assertThat(SharedEntry.parse(SharedEntry.of("1", EAST_A, false, 5, keys).fields())
                        .orElseThrow()
                        .confirmed())
                .isFalse();
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "r,''",
        "r,NOT-HEX",
        "s,''",
        "s,east/a",
        "c,1234567",
        "c,123456789",
        "o,x",
        "t,-1",
        "t,12a",
        "t,9999999999999999999",
        "k,''",
        "k,not base64!",
        "k,AAAA",
        "k,AAAAAAAAAA==",
    })
    void parse_badField_refused(String field, String value) {
        Map<String, String> fields = new HashMap<>(
                SharedEntry.of("ab", EAST_A, true, 5, new long[] {7}).fields());
        fields.put(field, value);
        assertThat(SharedEntry.parse(fields)).isEmpty();
    }

    @Test
    void parse_missingOrExtraField_refused_tooManyKeysRefused() {
        Map<String, String> fields = new HashMap<>(
                SharedEntry.of("ab", EAST_A, true, 5, new long[] {7}).fields());
        Map<String, String> extra = new HashMap<>(fields);
        extra.put("prompt", "text");
        assertThat(SharedEntry.parse(extra)).isEmpty();
        fields.remove("t");
        assertThat(SharedEntry.parse(fields)).isEmpty();
        long[] many = new long[SharedEntry.MAX_KEYS + 1];
        assertThat(SharedEntry.parse(SharedEntry.of("ab", EAST_A, true, 5, many).fields()))
                .isEmpty();
        assertThat(SharedEntry.parse(SharedEntry.of("ab", EAST_A, true, 5, new long[SharedEntry.MAX_KEYS])
                        .fields()))
                .isPresent();
    }

    @Test
    void parseRaw_sameFieldTwice_refused_ownReplicaAndClusterKeyReadWithoutDecoding() {
        Map<byte[], byte[]> raw = new LinkedHashMap<>();
        SharedEntry.of("ab", EAST_A, true, 5, new long[] {7})
                .fields()
                .forEach((name, value) -> raw.put(name.getBytes(UTF_8), value.getBytes(UTF_8)));
        assertThat(SharedEntry.parseRaw(raw)).isPresent();
        assertThat(SharedEntry.from(raw, "ab".getBytes(UTF_8))).isTrue();
        assertThat(SharedEntry.from(raw, "abc".getBytes(UTF_8))).isFalse();
        assertThat(SharedEntry.clusterKey(raw))
                .isEqualTo(SharedEntry.of("x", EAST_A, true, 0, new long[] {1}).clusterKey());

        Map<byte[], byte[]> twice = new LinkedHashMap<>(raw);
        twice.remove(
                twice.keySet().stream().filter(k -> k[0] == 't').findFirst().orElseThrow());
        twice.put("r".getBytes(UTF_8), "cd".getBytes(UTF_8)); // a second "r" (byte[] keys are distinct objects)
        assertThat(twice).hasSize(6);
        assertThat(SharedEntry.parseRaw(twice)).isEmpty();
    }
}
