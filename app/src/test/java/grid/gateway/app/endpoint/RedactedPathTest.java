package grid.gateway.app.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RedactedPathTest {
    @ParameterizedTest
    @CsvSource({
        // The segment after a stored-object collection is an id by its position, whatever it is spelled.
        "/v1/responses/abc/Cancel, /v1/responses/{id}/Cancel",
        "/v1/responses/resp_e.1..2/input_items/extra, /v1/responses/{id}/input_items/extra",
        "/v1/conversations/c1/items/i/x, /v1/conversations/{id}/items/i/x",
        // A segment spelled as an id is one wherever it sits.
        "/v1/files/resp_x, /v1/files/{id}",
        "/v1/unknown/conv_a/b/resp_b, /v1/unknown/{id}/b/{id}",
        // Nothing that may be an id: the path itself.
        "/v1/chat/completions/extra, /v1/chat/completions/extra",
        "/v1/responses/, /v1/responses/",
        "/v1/responses, /v1/responses",
        "/, /",
        "//, //",
        "/v1/responsesx/abc, /v1/responsesx/abc",
    })
    void storedIdSegments_replaced_everyOtherByteKept(String path, String logged) {
        assertThat(RedactedPath.of(path)).isEqualTo(logged);
    }

    /** Each way of writing a path that a reader decoding or normalising it takes for one naming a stored id. */
    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                // Percent-encoded spelling: once, twice, in either case, any letter of the mark.
                "/v1/files/resp%5Feast.SECRET | /v1/files/{id}",
                "/v1/files/%72esp_east.SECRET | /v1/files/{id}",
                "/v1/files/re%73p_SECRET | /v1/files/{id}",
                "/v1/files/RESP%5fSECRET | /v1/files/{id}",
                "/v1/files/resp%255FSECRET | /v1/files/{id}",
                "/v1/files/%25%37%32esp_SECRET | /v1/files/{id}",
                "/v1/files/x.resp_SECRET | /v1/files/{id}",
                // An encoded slash or query mark: one raw segment, read as more.
                "/v1/files%2Fresp_east.SECRET | /v1/{id}",
                "/v1/responses%2FSECRET | /v1/{id}",
                "/v1/responses%5CSECRET | /v1/{id}",
                "/v1/files%3Fprevious_response_id=resp_SECRET | /v1/{id}",
                // The collection in another case, with a parameter, after empty or dot segments.
                "/V1/Responses/SECRET | /V1/Responses/{id}",
                "/v1/RESPONSES/SECRET/cancel | /v1/RESPONSES/{id}/cancel",
                "/v1/responses;a=b/SECRET | /v1/responses;a=b/{id}",
                "/v1/responses%3Bx/SECRET | /v1/responses%3Bx/{id}",
                "/v1/r%65sponses/SECRET | /v1/r%65sponses/{id}",
                "/v1//responses/SECRET | /v1//responses/{id}",
                "/v1/responses//SECRET | /v1/responses//{id}",
                "//v1/responses/SECRET | //v1/responses/{id}",
                "/v1/./responses/SECRET | /v1/./responses/{id}",
                "/v1/x/../responses/SECRET | /v1/x/../responses/{id}",
                "/v1/responses/./SECRET | /v1/responses/./{id}",
                "/v1/responses/%2e%2e/SECRET | /v1/responses/%2e%2e/{id}",
                "/v1/conversations/%2E/SECRET | /v1/conversations/%2E/{id}",
                // A parameter naming the id.
                "/v1/files;x=resp_SECRET | /v1/{id}",
                // The request target in absolute form.
                "http://gw/v1/responses/SECRET | http://gw/v1/responses/{id}",
            })
    void everyWayOfWritingTheIdOrItsPlace_redacted(String path, String logged) {
        assertThat(RedactedPath.of(path)).isEqualTo(logged).doesNotContain("SECRET");
    }

    @Test
    void bySpelling_aRowsPathKeepsItsLiteralSegments_anIdInAPlaceholderRedacted() {
        assertThat(RedactedPath.bySpelling("/v1/responses/compact")).isEqualTo("/v1/responses/compact");
        assertThat(RedactedPath.bySpelling("/v1/conversations/{id}/items/resp_SECRET"))
                .isEqualTo("/v1/conversations/{id}/items/{id}");
        assertThat(RedactedPath.bySpelling("/v1/conversations/{id}/items/%72esp_SECRET"))
                .isEqualTo("/v1/conversations/{id}/items/{id}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"RESP_EAST.SECRET", "resp_east.SECRET", "x-conv_SECRET", "%72esp_SECRET", "Conv%5FSECRET"})
    void aWordHoldingAnId_isTheIdMark(String word) {
        assertThat(RedactedPath.holdsId(word)).isTrue();
        assertThat(RedactedPath.word(word)).isEqualTo(RedactedPath.ID);
    }

    @ParameterizedTest
    @ValueSource(strings = {"POST", "req_123", "responses", "c0nv-x", "%ZZ", "%", "resp-x"})
    void aWordWithoutAnId_isItself(String word) {
        assertThat(RedactedPath.holdsId(word)).isFalse();
        assertThat(RedactedPath.word(word)).isSameAs(word);
    }

    @Test
    void inText_eachWordThatMayBeAnId_replaced_everyOtherCharacterKept() {
        assertThat(RedactedPath.inText("Request failed: GET /v1/responses/SECRET HTTP/1.1, (id resp_x) \"Conv%5Fy\""))
                .isEqualTo("Request failed: GET /v1/responses/{id} HTTP/1.1, (id {id}) \"{id}\"");
        String plain = "config change refused: sites.east-a.url is not http(s)";
        assertThat(RedactedPath.inText(plain)).isSameAs(plain);
    }

    @Test
    void aSegmentEncodedBeyondFourDecodings_isTakenForAnId() {
        // Four decodings read what an engine and a proxy in front of it would; one encoded further is not decoded
        // level by level (a request line of %2525… has thousands of levels, each a pass over the segment).
        assertThat(RedactedPath.of("/v1/files/%2525252572esp_SECRET/x")).isEqualTo("/v1/files/{id}/x");
        assertThat(RedactedPath.of("/v1/files/%252525252541/x")).isEqualTo("/v1/files/{id}/x");
        String deep = "/v1/files/%25" + "25".repeat(3_000) + "41";
        assertThat(RedactedPath.of(deep)).isEqualTo("/v1/files/{id}");
        assertThat(RedactedPath.bySpelling(deep)).isEqualTo("/v1/files/{id}");
        assertThat(RedactedPath.holdsId("%25252525252541")).isTrue();
        assertThat(RedactedPath.of("/v1/files/%25252541/x"))
                .as("four decodings: read")
                .isEqualTo("/v1/files/%25252541/x");
    }

    @ParameterizedTest
    @CsvSource({"/v1/chat/completions", "/health", "/v1/models/demo-model", "/v1/messages/count_tokens"})
    void aPathWithNoIdInIt_isReturnedAsItIs(String path) {
        assertThat(RedactedPath.of(path)).isSameAs(path);
        assertThat(RedactedPath.bySpelling(path)).isSameAs(path);
    }
}
