package grid.gateway.routing.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagParse;
import grid.gateway.routing.text.JsonListener;
import grid.gateway.routing.text.JsonTokenizer;
import grid.gateway.routing.text.JsonTokenizer.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Jazzer fuzz targets for the JSON tokenizer, the keyer and the tag parser (reliability B32).
 * Invariants: never throws, never reports a keyer fault, gives the same answer twice (no hidden state), and a parsed
 * tag formats back to the exact text it came from. The tokenizer's target is the one that covers the JSON grammar,
 * which the keyer and the gateway's stored-id rewriting share.
 *
 * <p>Without {@code JAZZER_FUZZ} each target replays its corpus under {@code src/test/resources/grid/gateway/
 * routing/fuzz/ParserFuzzTestInputs/<target>/} as a regression test (Envoy's corpus-as-test practice); with
 * {@code JAZZER_FUZZ=1} Jazzer mutates from that corpus for {@code maxDuration}, and a crash it finds is written
 * there to become a regression input.
 */
class ParserFuzzTest {
    private static final ApiDialect[] DIALECTS = ApiDialect.values();

    private static final Pattern SCALAR =
            Pattern.compile("true|false|null|-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

    private final PromptKeyer keyer = new PromptKeyer();
    private final TagCodec codec = new TagCodec();

    /** The first byte picks the API, the rest is the body. */
    @FuzzTest(maxDuration = "10s")
    void keyer(byte[] input) {
        if (input.length == 0) {
            return;
        }
        ApiDialect dialect = DIALECTS[Byte.toUnsignedInt(input[0]) % DIALECTS.length];
        byte[] body = Arrays.copyOfRange(input, 1, input.length);
        PromptKeys first = keyer.key(dialect, body);
        assertThat(first.noKeysReason()).isNotEqualTo(Optional.of(NoKeysReason.KEYER_FAULT));
        assertThat(first.keys().size()).isBetween(0, 512);
        assertThat(keyer.key(dialect, body.clone())).isEqualTo(first);
    }

    @FuzzTest(maxDuration = "10s")
    void tagParser(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        TagParse first = codec.parse(text);
        assertThat(codec.parse(text)).isEqualTo(first);
        if (first instanceof TagParse.Tagged tagged) {
            assertThat(codec.format(tagged.id())).isEqualTo(text);
            assertThat(codec.strip(tagged.id())).startsWith(tagged.id().kind().prefix());
        }
    }

    /**
     * The one JSON grammar: answers the same for the same bytes read inside a larger array, reports tokens that move
     * forward and nest ({@link JsonEvents}), and on a valid text leaves only white space, commas and colons between
     * its tokens, each scalar a literal or an RFC 8259 number; a valid container, string or literal cut short is
     * refused.
     */
    @FuzzTest(maxDuration = "10s")
    void jsonTokenizer(byte[] text) {
        JsonEvents events = new JsonEvents(0, text.length);
        Outcome outcome = JsonTokenizer.tokenize(text, events);
        byte[] padded = new byte[text.length + 2];
        padded[0] = '[';
        System.arraycopy(text, 0, padded, 1, text.length);
        padded[padded.length - 1] = '"';
        JsonEvents inside = new JsonEvents(1, text.length + 1);
        assertThat(JsonTokenizer.tokenize(padded, 1, text.length + 1, inside)).isEqualTo(outcome);
        assertThat(rows(inside)).isEqualTo(rows(events));
        if (outcome == Outcome.TOO_DEEP) {
            assertThat(events.unclosed()).isEqualTo(JsonTokenizer.MAX_DEPTH);
        }
        if (outcome == Outcome.VALID) {
            assertThat(events.unclosed()).isZero();
            checkTokens(text, events.rows());
            int first = JsonTokenizer.skipWhiteSpace(text, 0, text.length);
            int last = text.length - 1;
            while (JsonTokenizer.skipWhiteSpace(text, last, last + 1) > last) {
                last--;
            }
            if ("{[\"tfn".indexOf(text[first]) >= 0) {
                assertThat(JsonTokenizer.tokenize(text, 0, last, JsonListener.NONE))
                        .isNotEqualTo(Outcome.VALID);
            }
        }
    }

    /** Between tokens only white space, commas and colons; strings quoted; scalars literals or numbers. */
    private static void checkTokens(byte[] text, List<int[]> rows) {
        int position = 0;
        for (int[] row : rows) {
            for (int i = position; i < row[1]; i++) {
                assertThat(" \t\n\r,:".indexOf(text[i]))
                        .as("byte %d between tokens", i)
                        .isNotNegative();
            }
            String token = new String(text, row[1], row[2] - row[1], StandardCharsets.ISO_8859_1);
            switch (row[0]) {
                case JsonEvents.NAME, JsonEvents.STRING ->
                    assertThat(token)
                            .hasSizeGreaterThanOrEqualTo(2)
                            .startsWith("\"")
                            .endsWith("\"");
                case JsonEvents.SCALAR ->
                    assertThat(SCALAR.matcher(token).matches()).as(token).isTrue();
                default -> assertThat(token).isIn("{", "[", "}", "]");
            }
            position = row[2];
        }
        for (int i = position; i < text.length; i++) {
            assertThat(" \t\n\r".indexOf(text[i])).isNotNegative();
        }
    }

    private static List<String> rows(JsonEvents events) {
        return events.rows().stream().map(Arrays::toString).toList();
    }
}
