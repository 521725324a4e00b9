package grid.gateway.app.rewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Jazzer fuzz targets for the id-rewriting scanner (issue 13: fuzzing extended to it), as routing-core's
 * {@code ParserFuzzTest} does for the keyer. Invariants, on any bytes:
 *
 * <ul>
 *   <li>the request stripper never throws, gives the same answer twice, and with a mapping that changes nothing
 *       returns the body byte for byte;
 *   <li>the response tagger never throws, gives the same answer twice, leaves a body the strict scan rejects as it
 *       is, and turns a valid JSON text into a valid JSON text.
 * </ul>
 *
 * <p>Without {@code JAZZER_FUZZ} each target replays its corpus under {@code src/test/resources/grid/gateway/app/
 * rewrite/IdScannerFuzzTestInputs/<target>/} as a regression test; with {@code JAZZER_FUZZ=1} (the build's own
 * executions) Jazzer mutates from it for {@code fuzz.duration}.
 */
class IdScannerFuzzTest {
    private static final JsonScan.Listener IGNORE = (name, place, start, end, escaped) -> {};

    private final RequestIdStripper stripper = new RequestIdStripper();
    private final ResponseIdTagger tagger = new ResponseIdTagger(id -> id.startsWith("resp_") || id.startsWith("conv_")
            ? id.substring(0, 5) + "east.1ef772aa.." + id.substring(5)
            : id);

    @FuzzTest(maxDuration = "10s")
    void requestIdStripper(byte[] body) {
        Optional<StoredIds> first = stripper.read(body);
        assertThat(stripper.read(body.clone())).isEqualTo(first);
        first.ifPresent(ids ->
                assertThat(stripper.strip(body, ids, UnaryOperator.identity())).isEqualTo(body));
    }

    @FuzzTest(maxDuration = "10s")
    void responseIdTagger(byte[] body) {
        byte[] tagged = tagger.tagJson(body);
        assertThat(tagger.tagJson(body.clone())).isEqualTo(tagged);
        if (JsonScan.scan(body, 0, body.length, IGNORE)) {
            assertThat(JsonScan.scan(tagged, 0, tagged.length, IGNORE)).isTrue();
        } else {
            assertThat(tagged).isSameAs(body);
        }
    }
}
