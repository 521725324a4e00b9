package grid.gateway.routing.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.keyer.NoKeysReason;
import grid.gateway.routing.keyer.PromptKeyer;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagParse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Jazzer fuzz targets for the keyer and the tag parser (reliability B32, issue 8's fuzz run). Invariants: never
 * throws, never reports a keyer fault, gives the same answer twice (no hidden state), and a parsed tag formats back
 * to the exact text it came from.
 *
 * <p>Without {@code JAZZER_FUZZ} each target replays its corpus under {@code src/test/resources/grid/gateway/
 * routing/fuzz/ParserFuzzTestInputs/<target>/} as a regression test (Envoy's corpus-as-test practice); with
 * {@code JAZZER_FUZZ=1} Jazzer mutates from that corpus for {@code maxDuration}, and a crash it finds is written
 * there to become a regression input.
 */
class ParserFuzzTest {
    private static final ApiDialect[] DIALECTS = ApiDialect.values();

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
}
