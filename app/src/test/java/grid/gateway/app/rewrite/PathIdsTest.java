package grid.gateway.app.rewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.endpoint.EndpointTable;
import org.junit.jupiter.api.Test;

/** Replacing the stored id of a request path (docs/design.md §5); the endpoint table finds it. */
class PathIdsTest {
    private static final String TAG = "resp_east.1ef772aa..abc";

    private final PathIds paths = new PathIds();

    private static PathId find(String path) {
        return EndpointTable.standard().classify(path).pathId().orElseThrow();
    }

    @Test
    void replace_idSegment_restOfPathAndQueryUntouched() {
        String path = "/v1/responses/" + TAG + "/input_items?after=" + TAG + "&limit=5";
        PathId id = find(path);

        assertThat(paths.replace(path, id, "resp_abc"))
                .isEqualTo("/v1/responses/resp_abc/input_items?after=" + TAG + "&limit=5");
    }

    @Test
    void replace_conversationItem_onlyTheConversationSegment() {
        String path = "/v1/conversations/conv_east.1ef772aa..x/items/conv_east.1ef772aa..x";
        PathId id = find(path);

        assertThat(paths.replace(path, id, "conv_x")).isEqualTo("/v1/conversations/conv_x/items/conv_east.1ef772aa..x");
    }

    @Test
    void replace_replacementOutsideUnreserved_percentEncoded() {
        String path = "/v1/responses/" + TAG;
        assertThat(paths.replace(path, find(path), "a/b?c%d é~._-"))
                .isEqualTo("/v1/responses/a%2Fb%3Fc%25d%20%C3%A9~._-");
    }

    @Test
    void replace_idNotInPath_refused() {
        PathId id = find("/v1/responses/" + TAG);
        assertThatThrownBy(() -> paths.replace("/v1/responses/resp_other", id, "resp_abc"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
