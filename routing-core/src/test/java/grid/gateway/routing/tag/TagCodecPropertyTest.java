package grid.gateway.routing.tag;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.testing.SeededTrials;
import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Seeded property tests for the tag parser (docs/design.md §5): on near-tags and noise it never throws, agrees with a regular
 * expression written straight from the spec (a test-only oracle; the parser itself uses none), and reads back
 * exactly what it would format.
 */
class TagCodecPropertyTest {
    private static final long SEED = 0x7A65_0005L;
    private static final int TRIES = 10_000;
    private static final Pattern TAG = Pattern.compile(
            "(resp_|conv_)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\\.[0-9a-f]{8}\\.([0-9a-f]{16})?\\.[A-Za-z0-9_-]+");
    private static final Pattern UNTAGGED = Pattern.compile("(resp_|conv_)[A-Za-z0-9_-]+");
    private static final String[] PREFIXES = {"resp_", "conv_", "resp_", "conv_", "", "msg_", "RESP_", "resp"};
    private static final String NOISE = "abcdef0123456789xyzXYZ-_.. é/%\u0000\uD83D";

    private enum Kind {
        TAGGED,
        UNTAGGED,
        MALFORMED
    }

    private final TagCodec codec = new TagCodec();

    @Test
    void parse_randomNearTags_neverThrowsAndMatchesSpecOracle() {
        Map<Kind, Integer> seen = new EnumMap<>(Kind.class);
        SeededTrials.forAll(SEED, TRIES, TagCodecPropertyTest::nearTag, text -> {
            Kind kind = kindOf(codec.parse(text));
            assertThat(kind).isEqualTo(oracle(text));
            seen.merge(kind, 1, Integer::sum);
        });
        // The generator must reach every outcome often (over 1% each), or the agreement above proves little.
        assertThat(seen).containsOnlyKeys(Kind.values());
        assertThat(seen.values()).allSatisfy(count -> assertThat(count).isGreaterThan(TRIES / 100));
    }

    @Test
    void parse_anyTaggedResult_formatsBackToSameText() {
        SeededTrials.forAll(SEED + 1, TRIES, TagCodecPropertyTest::nearTag, text -> {
            if (codec.parse(text) instanceof TagParse.Tagged tagged) {
                assertThat(codec.format(tagged.id())).isEqualTo(text);
            }
        });
    }

    @Test
    void formatAny_anyEngineIdOfTheKind_readsBackAsItsTagOrAsNoTag() {
        // Whatever an engine writes after its prefix (near-tags of other clusters included), the text it leaves as
        // names the cluster that served it or none.
        SeededTrials.forAll(SEED + 4, TRIES, TagCodecPropertyTest::nearTag, text -> {
            String engineId = "resp_" + text;
            TagParse parsed = codec.parse(codec.formatAny(IdKind.RESP, "east", "1ef772aa", "", engineId));
            if (parsed instanceof TagParse.Tagged tagged) {
                assertThat(tagged.id()).isEqualTo(new TaggedId(IdKind.RESP, "east", "1ef772aa", "", engineId));
            } else {
                assertThat(parsed).isInstanceOf(TagParse.Malformed.class);
            }
        });
    }

    @Test
    void parse_siteLabels_agreeWithSiteName() {
        // The parser checks labels by hand; config checks them with SiteName. Both must accept the same sites.
        SeededTrials.forAll(SEED + 2, TRIES, random -> noise(random, "abz09-A_.", 1 + random.nextInt(66)), site -> {
            boolean tagged = codec.parse("resp_" + site + ".1ef772aa..x") instanceof TagParse.Tagged;
            assertThat(tagged).isEqualTo(SiteName.isValid(site));
        });
    }

    @Test
    void parse_randomUtf16Noise_neverThrows() {
        SeededTrials.forAll(
                SEED + 3,
                TRIES,
                random -> randomChars(random),
                text -> assertThat(codec.parse(text)).isNotNull());
    }

    private static Kind kindOf(TagParse parse) {
        return switch (parse) {
            case TagParse.Tagged tagged -> Kind.TAGGED;
            case TagParse.Untagged untagged -> Kind.UNTAGGED;
            case TagParse.Malformed malformed -> Kind.MALFORMED;
        };
    }

    private static Kind oracle(String text) {
        if (text.length() > TagText.MAX_LENGTH) {
            return Kind.MALFORMED;
        }
        if (TAG.matcher(text).matches()) {
            return Kind.TAGGED;
        }
        return UNTAGGED.matcher(text).matches() ? Kind.UNTAGGED : Kind.MALFORMED;
    }

    /** A tag whose parts are each sometimes right, sometimes slightly wrong, sometimes noise. */
    private static String nearTag(SplittableRandom random) {
        String prefix = PREFIXES[random.nextInt(PREFIXES.length)];
        if (random.nextInt(4) == 0) {
            return prefix + noise(random, "abc019XYZ_-", 1 + random.nextInt(40));
        }
        String site = random.nextInt(3) > 0 ? noise(random, "ab09-", 1 + random.nextInt(8)) : noise(random, NOISE, 5);
        String digest = random.nextInt(3) > 0
                ? noise(random, "0123456789abcdef", 8 + random.nextInt(2) - random.nextInt(2))
                : noise(random, NOISE, 8);
        String mac = switch (random.nextInt(4)) {
            case 0 -> "";
            case 1 -> noise(random, "0123456789abcdef", 15 + random.nextInt(3));
            case 2 -> noise(random, NOISE, 16);
            default -> noise(random, "0123456789abcdef", 16);
        };
        String id = random.nextInt(3) > 0 ? noise(random, "abcXYZ019_-", random.nextInt(40)) : noise(random, NOISE, 6);
        String tag = prefix + site + "." + digest + "." + mac + "." + id;
        return random.nextInt(50) == 0 ? tag + "x".repeat(TagText.MAX_LENGTH) : tag;
    }

    private static String noise(SplittableRandom random, String alphabet, int length) {
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    private static String randomChars(SplittableRandom random) {
        StringBuilder text = new StringBuilder(random.nextInt(5) == 0 ? "resp_" : "");
        int length = random.nextInt(600);
        for (int i = 0; i < length; i++) {
            text.append((char) random.nextInt(Character.MAX_VALUE + 1));
        }
        return text.toString();
    }
}
