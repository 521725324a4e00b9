package grid.gateway.routing.tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Formatting, parsing and stripping stored-id tags (docs/design.md §5). */
class TagCodecTest {
    /** {@code printf '%s' east-a | sha256sum}, first 8 hex digits. */
    private static final String EAST_A = "1ef772aa";
    /** {@code printf '%s' east.1ef772aa | openssl dgst -sha256 -hmac tag-key-0123456789abcdef}, first 16. */
    private static final String EAST_A_MAC = "315e3ad6b9906efa";

    private final TagCodec codec = new TagCodec();

    @Test
    void format_noKey_emptyMacBetweenTwoDots() {
        assertThat(codec.format(IdKind.RESP, "east", ClusterDigest.of("east-a"), "", "resp_abc123"))
                .isEqualTo("resp_east.1ef772aa..abc123");
    }

    @Test
    void format_withKey_goldenTag() {
        TagKeyRing ring = TagKeyRing.parse("tag-key-0123456789abcdef\n");
        String mac = ring.sign("east", EAST_A);
        assertThat(codec.format(IdKind.RESP, "east", EAST_A, mac, "resp_abc123"))
                .isEqualTo("resp_east.1ef772aa.315e3ad6b9906efa.abc123");
    }

    @Test
    void format_conversation_keepsConvPrefix() {
        assertThat(codec.format(IdKind.CONV, "west", "8bcc2dc9", "", "conv_123"))
                .isEqualTo("conv_west.8bcc2dc9..123");
    }

    @Test
    void parse_goldenTagWithMac_allParts() {
        TagParse parsed = codec.parse("resp_east.1ef772aa.315e3ad6b9906efa.abc123");
        assertThat(parsed)
                .isEqualTo(new TagParse.Tagged(new TaggedId(IdKind.RESP, "east", EAST_A, EAST_A_MAC, "resp_abc123")));
    }

    @Test
    void parse_goldenTagWithoutMac_emptyMac() {
        assertThat(codec.parse("conv_east.1ef772aa..abc123"))
                .isEqualTo(new TagParse.Tagged(new TaggedId(IdKind.CONV, "east", EAST_A, "", "conv_abc123")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"RESP, resp_0123456789abcdef0123456789abcdef", "CONV, conv_123", "RESP, resp_a", "CONV, conv_A-b_C"})
    void formatParseStrip_engineId_restored(IdKind kind, String engineId) {
        String tag = codec.format(kind, "eu-west-1", EAST_A, EAST_A_MAC, engineId);
        TagParse parsed = codec.parse(tag);
        assertThat(parsed).isInstanceOf(TagParse.Tagged.class);
        assertThat(codec.strip(((TagParse.Tagged) parsed).id())).isEqualTo(engineId);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"resp_abc", "conv_123", "resp_0123456789abcdef0123456789abcdef", "resp_a-b_C"})
    void parse_plainEngineId_untagged(String text) {
        assertThat(codec.parse(text)).isInstanceOf(TagParse.Untagged.class);
    }

    @ParameterizedTest(name = "{1}: {0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "''                                                      | empty",
                "resp_                                                   | prefix only",
                "resp_abc def                                            | space in untagged id",
                "msg_east.1ef772aa..abc123                               | other prefix",
                "RESP_east.1ef772aa..abc123                              | upper-case prefix",
                "east.1ef772aa..abc123                                   | no prefix",
                "resp_.1ef772aa..abc123                                  | empty site",
                "resp_East.1ef772aa..abc123                              | upper-case site",
                "resp_-east.1ef772aa..abc123                             | site starts with dash",
                "resp_east-.1ef772aa..abc123                             | site ends with dash",
                "resp_ea_st.1ef772aa..abc123                             | underscore in site",
                "resp_east.1ef772a..abc123                               | digest of 7 digits",
                "resp_east.1ef772aa0..abc123                             | digest of 9 digits",
                "resp_east.1EF772AA..abc123                              | upper-case digest",
                "resp_east.1ef772ag..abc123                              | non-hex digest",
                "resp_east.1ef772aa.315e3ad6b9906ef.abc123               | mac of 15 digits",
                "resp_east.1ef772aa.315e3ad6b9906efa0.abc123             | mac of 17 digits",
                "resp_east.1ef772aa.315E3AD6B9906EFA.abc123              | upper-case mac",
                "resp_east.1ef772aa.315e3ad6b9906efz.abc123              | non-hex mac",
                "resp_east.1ef772aa..                                    | empty id",
                "resp_east.1ef772aa..abc.123                             | fourth dot",
                "resp_east.1ef772aa..abc/123                             | slash in id",
                "resp_east.1ef772aa..abc%2F                              | percent in id",
                "resp_east.1ef772aa..abcé                                | non-ASCII id",
                "resp_east.1ef772aa                                      | one dot",
                "resp_east.1ef772aa.                                     | two dots, no id",
                "resp_east..                                             | digest missing",
            })
    void parse_flawedTag_malformed(String text, String flaw) {
        assertThat(codec.parse(text)).as(flaw).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void parse_macOfFifteenHexDigits_malformed() {
        assertThat(codec.parse("resp_east.1ef772aa.315e3ad6b9906ef.abc123")).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void parse_siteOf63Chars_tagged() {
        assertThat(codec.parse("resp_" + "a".repeat(63) + ".1ef772aa..x")).isInstanceOf(TagParse.Tagged.class);
    }

    @Test
    void parse_siteOf64Chars_malformed() {
        assertThat(codec.parse("resp_" + "a".repeat(64) + ".1ef772aa..x")).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void parse_exactly512Chars_tagged() {
        String head = "resp_east.1ef772aa..";
        assertThat(codec.parse(head + "x".repeat(512 - head.length()))).isInstanceOf(TagParse.Tagged.class);
    }

    @Test
    void parse_513Chars_malformed() {
        String head = "resp_east.1ef772aa..";
        assertThat(codec.parse(head + "x".repeat(513 - head.length()))).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void parse_untaggedIdOver512Chars_malformed() {
        assertThat(codec.parse("resp_" + "x".repeat(508))).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    @Timeout(2)
    void parse_oneMegabyteId_malformedQuickly() {
        // Refused on its length before any scan: ten thousand of them take milliseconds, not a megabyte scan each.
        String huge = "resp_east.1ef772aa.." + "a".repeat(1 << 20);
        for (int i = 0; i < 10_000; i++) {
            assertThat(codec.parse(huge)).isInstanceOf(TagParse.Malformed.class);
        }
    }

    @Test
    void format_engineIdOfOtherKind_refused() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", EAST_A, "", "conv_abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("resp_");
    }

    @Test
    void format_engineIdWithDot_refused() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", EAST_A, "", "resp_a.b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'.'");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"resp_a b", "resp_a/b", "resp_é"})
    void format_engineIdParseWouldRefuse_refused(String engineId) {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", EAST_A, "", engineId))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining(engineId);
    }

    @Test
    void format_engineIdOfPrefixOnly_refused() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", EAST_A, "", "resp_"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void format_badSite_refusedNamingIt() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "East", EAST_A, "", "resp_abc"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"East\"");
    }

    @Test
    void format_badDigest_refused() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", "1EF772AA", "", "resp_abc"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void format_macOfFifteenHexDigits_refused() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", EAST_A, "315e3ad6b9906ef", "resp_abc"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void format_tagOver512Chars_refused() {
        assertThatThrownBy(() -> codec.format(IdKind.RESP, "east", EAST_A, EAST_A_MAC, "resp_" + "x".repeat(480)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("512");
    }

    @Test
    void formatAny_idATagCarries_itsTag() {
        for (String engineId : new String[] {"resp_abc123", "resp_" + "x".repeat(474)}) {
            assertThat(codec.formatAny(IdKind.RESP, "east", EAST_A, EAST_A_MAC, engineId))
                    .isEqualTo(codec.format(IdKind.RESP, "east", EAST_A, EAST_A_MAC, engineId));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "resp_west.8bcc2dc9..forged", // a tag of another cluster
                "resp_east.1ef772aa.315e3ad6b9906efa.abc123", // a tag of this very cluster: tagged twice
                "resp_a.b",
                "resp_a/b",
                "resp_é",
                "resp_"
            })
    void formatAny_idNoTagCarries_theTagsHeadThenTheIdAsItIs_namingNoCluster(String engineId) {
        String text = codec.formatAny(IdKind.RESP, "east", EAST_A, EAST_A_MAC, engineId);
        assertThat(text).isEqualTo("resp_east.1ef772aa.315e3ad6b9906efa." + engineId.substring(5));
        assertThat(codec.parse(text)).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void formatAny_idTooLongForATag_namesNoCluster() {
        String text = codec.formatAny(IdKind.CONV, "east", EAST_A, "", "conv_" + "x".repeat(500));
        assertThat(text).startsWith("conv_east.1ef772aa..x");
        assertThat(codec.parse(text)).isInstanceOf(TagParse.Malformed.class);
    }

    @Test
    void formatAny_idOfAnotherKindOrBadSite_refused() {
        assertThatThrownBy(() -> codec.formatAny(IdKind.RESP, "east", EAST_A, "", "conv_abc"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> codec.formatAny(IdKind.RESP, "East", EAST_A, "", "resp_abc"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
