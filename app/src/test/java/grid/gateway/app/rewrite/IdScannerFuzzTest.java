package grid.gateway.app.rewrite;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.text.JsonTokenizer;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Jazzer fuzz targets for the stored-id rewriting. The JSON grammar underneath is
 * routing-core's {@code JsonTokenizer}, fuzzed there ({@code ParserFuzzTest#jsonTokenizer}); these targets fuzz what
 * the rewriting adds on top of it. Invariants, on any bytes:
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
    private final RequestIdStripper stripper = new RequestIdStripper();
    private final ResponseIdTagger tagger = new ResponseIdTagger(id -> IdKind.of(id)
            .map(kind -> kind.prefix() + "east.1ef772aa.."
                    + id.substring(kind.prefix().length()))
            .orElse(id));

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
        if (JsonTokenizer.isValid(body)) {
            assertThat(JsonTokenizer.isValid(tagged)).isTrue();
        } else {
            assertThat(tagged).isSameAs(body);
        }
    }
}
