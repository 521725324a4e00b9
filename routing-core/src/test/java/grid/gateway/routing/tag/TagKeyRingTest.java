package grid.gateway.routing.tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.testing.SeededTrials;
import java.util.HexFormat;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Signing and verifying tag macs (docs/design.md §5). Every expected mac was computed outside Java, as the first 16 hex digits
 * of {@code printf '%s' '<site>.<digest>' | openssl dgst -sha256 -hmac '<key>'}, so these are known answers rather
 * than the code checking itself.
 */
class TagKeyRingTest {
    private static final String KEY = "tag-key-0123456789abcdef";
    private static final String OLD_KEY = "old-key-0123456789abcdef";
    private static final String NEW_KEY = "new-key-0123456789abcdef";
    private static final String THIRD_KEY = "third-key-0123456789abcdef";
    /** {@code printf '%s' east-a | sha256sum}, first 8 hex digits. */
    private static final String EAST_A = "1ef772aa";

    private static final String OLD_MAC = "6332f8c9db48626b";
    private static final String NEW_MAC = "dfa2262d8b82ecc6";
    private static final String THIRD_MAC = "116676b419b5547e";

    @ParameterizedTest(name = "{0}.{1} -> {2}")
    @CsvSource({"east, 1ef772aa, 315e3ad6b9906efa", "west, 8bcc2dc9, 1ef1c6281a5f702c"})
    void sign_goldenKey_knownAnswer(String site, String digest, String mac) {
        assertThat(TagKeyRing.parse(KEY).sign(site, digest)).isEqualTo(mac);
    }

    @Test
    void verify_goldenMac_true() {
        assertThat(TagKeyRing.parse(KEY).verify("east", EAST_A, "315e3ad6b9906efa"))
                .isTrue();
    }

    @Test
    void verify_macOfAnotherSite_false() {
        // The mac signs site and cluster together: a client cannot move a tag to a site it was never given.
        TagKeyRing ring = TagKeyRing.parse(KEY);
        assertThat(ring.verify("west", EAST_A, ring.sign("east", EAST_A))).isFalse();
    }

    @Test
    void verify_macOfAnotherCluster_false() {
        TagKeyRing ring = TagKeyRing.parse(KEY);
        assertThat(ring.verify("east", "8bcc2dc9", ring.sign("east", EAST_A))).isFalse();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "315e3ad6b9906ef", "315e3ad6b9906efa0", "315E3AD6B9906EFA"})
    void verify_macNotExactlyTheLowerHexText_false(String mac) {
        assertThat(TagKeyRing.parse(KEY).verify("east", EAST_A, mac)).isFalse();
    }

    @Test
    void verify_taggedId_usesItsParts() {
        TaggedId id = new TaggedId(IdKind.RESP, "east", EAST_A, "315e3ad6b9906efa", "resp_abc123");
        assertThat(TagKeyRing.parse(KEY).verify(id)).isTrue();
    }

    @Test
    void sign_rotatedRing_signsWithFirstKey() {
        assertThat(TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY).sign("east", EAST_A))
                .isEqualTo(NEW_MAC);
    }

    @Test
    void verify_rotatedRing_acceptsOldKeyMac() {
        assertThat(TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY).verify("east", EAST_A, OLD_MAC))
                .isTrue();
    }

    @Test
    void verify_rotatedRing_acceptsNewKeyMac() {
        assertThat(TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY).verify("east", EAST_A, NEW_MAC))
                .isTrue();
    }

    @Test
    void verify_rotatedRing_refusesThirdKeyMac() {
        TagKeyRing third = TagKeyRing.parse(THIRD_KEY);
        assertThat(third.sign("east", EAST_A)).isEqualTo(THIRD_MAC);
        assertThat(TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY).verify("east", EAST_A, THIRD_MAC))
                .isFalse();
    }

    @Test
    void verify_replicasEitherSideOfRotation_acceptEachOthersTags() {
        // Mid-rollout one replica still has the old order (old key signs) and another the new order.
        TagKeyRing oldOrder = TagKeyRing.parse(OLD_KEY + "\n" + NEW_KEY);
        TagKeyRing newOrder = TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY);
        assertThat(oldOrder.sign("east", EAST_A)).isEqualTo(OLD_MAC);
        assertThat(newOrder.verify("east", EAST_A, oldOrder.sign("east", EAST_A)))
                .isTrue();
        assertThat(oldOrder.verify("east", EAST_A, newOrder.sign("east", EAST_A)))
                .isTrue();
    }

    @Test
    void parse_blankLinesAndSurroundingWhiteSpace_ignored() {
        TagKeyRing ring = TagKeyRing.parse("\n   \r\n  " + KEY + " \t\r\n\n");
        assertThat(ring.keyCount()).isEqualTo(1);
        assertThat(ring.sign("east", EAST_A)).isEqualTo("315e3ad6b9906efa");
    }

    @Test
    void sign_noKey_empty() {
        assertThat(TagKeyRing.none().sign("east", EAST_A)).isEmpty();
    }

    @Test
    void hasKey_none_false() {
        assertThat(TagKeyRing.none().hasKey()).isFalse();
    }

    @Test
    void hasKey_parsedRing_true() {
        assertThat(TagKeyRing.parse(KEY).hasKey()).isTrue();
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "315e3ad6b9906efa", "0123456789abcdef", "not-even-hex"})
    void verify_noKey_anyMacAccepted(String mac) {
        // Without a key any well-formed tag is accepted; the codec has already refused malformed ones.
        assertThat(TagKeyRing.none().verify("east", EAST_A, mac)).isTrue();
    }

    @Test
    void verify_noKey_malformedTagNeverReachesIt() {
        assertThat(new TagCodec().parse("resp_east.1ef772aa.315e3ad6b9906ef.abc123"))
                .isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void parse_keyOf15Bytes_refusedNamingLineNotKey() {
        String shortKey = "fifteen-bytes!!";
        assertThatThrownBy(() -> TagKeyRing.parse(KEY + "\n\n" + shortKey + "\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 3")
                .hasMessageNotContaining(shortKey)
                .hasMessageNotContaining(KEY);
    }

    @Test
    void parse_keyOf16Bytes_accepted() {
        assertThat(TagKeyRing.parse("sixteen-bytes!!!").keyCount()).isEqualTo(1);
    }

    @Test
    void parse_sixteenUtf8BytesInEightChars_accepted() {
        // The minimum counts UTF-8 bytes, not chars: each é is two bytes.
        assertThat(TagKeyRing.parse("éééééééé").keyCount()).isEqualTo(1);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "\n", "  \n\t\r\n  "})
    void parse_noKeyLine_refused(String fileContent) {
        assertThatThrownBy(() -> TagKeyRing.parse(fileContent))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no key");
    }

    @Test
    void toString_twoKeys_countOnly() {
        TagKeyRing ring = TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY);
        assertThat(ring.toString())
                .isEqualTo("TagKeyRing[keys=2]")
                .doesNotContain(NEW_KEY)
                .doesNotContain(OLD_KEY);
    }

    @Test
    void verify_forgedMacs_neverAccepted() {
        TagKeyRing ring = TagKeyRing.parse(NEW_KEY + "\n" + OLD_KEY);
        HexFormat hex = HexFormat.of();
        SeededTrials.forAll(
                0x7A6_0001L,
                10_000,
                random -> hex.toHexDigits(random.nextLong()),
                mac -> assertThat(ring.verify("east", EAST_A, mac)).isFalse());
    }

    @Test
    void sign_manyThreads_sameMac() {
        // One ring serves every request: cloned Macs keep concurrent signing independent.
        TagKeyRing ring = TagKeyRing.parse(KEY);
        assertThat(IntStream.range(0, 20_000).parallel().mapToObj(i -> ring.sign("east", EAST_A)))
                .containsOnly("315e3ad6b9906efa");
    }
}
