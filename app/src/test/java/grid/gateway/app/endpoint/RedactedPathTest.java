package grid.gateway.app.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    @ParameterizedTest
    @CsvSource({"/v1/chat/completions", "/health", "/v1/models/demo-model"})
    void aPathWithNoIdInIt_isReturnedAsItIs(String path) {
        assertThat(RedactedPath.of(path)).isSameAs(path);
    }
}
