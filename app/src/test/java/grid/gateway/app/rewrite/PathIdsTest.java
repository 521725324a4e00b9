package grid.gateway.app.rewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.testing.SeededTrials;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Finding and replacing the stored id of a request path (SPEC §5). */
class PathIdsTest {
    private static final String TAG = "resp_east.1ef772aa..abc";

    private final PathIds paths = new PathIds();

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "/v1/responses/resp_east.1ef772aa..abc, RESP, resp_east.1ef772aa..abc",
        "/v1/responses/resp_east.1ef772aa..abc?stream=true&starting_after=3, RESP, resp_east.1ef772aa..abc",
        "/v1/responses/resp_abc/cancel, RESP, resp_abc",
        "/v1/responses/resp_abc/input_items?limit=5&after=msg_1&order=asc, RESP, resp_abc",
        "/v1/responses/msg_abc, RESP, msg_abc",
        "/v1/responses/resp_a%2Fb, RESP, resp_a%2Fb",
        "/v1/responses/.., RESP, ..",
        "/v1/responses/compact2, RESP, compact2",
        "/v1/conversations/conv_east.1ef772aa..x, CONV, conv_east.1ef772aa..x",
        "/v1/conversations/conv_x?include[]=a, CONV, conv_x",
        "/v1/conversations/conv_x/items, CONV, conv_x",
        "/v1/conversations/conv_x/items?limit=2/3, CONV, conv_x",
        "/v1/conversations/conv_x/items?/x, CONV, conv_x",
        "/v1/conversations/conv_x/items/msg_1, CONV, conv_x",
        "/v1/conversations/conv_x/items/msg_1?include[]=x/y, CONV, conv_x",
    })
    void find_idPath_segmentAsSent(String path, IdKind kind, String id) {
        Optional<PathId> found = paths.find(path);

        assertThat(found).hasValueSatisfying(pathId -> {
            assertThat(pathId.kind()).isEqualTo(kind);
            assertThat(pathId.value()).isEqualTo(id);
            assertThat(path.substring(pathId.start(), pathId.end())).isEqualTo(id);
        });
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(
            strings = {
                "",
                "/",
                "/v1/responses",
                "/v1/responses/",
                "/v1/responses?x=/v1/responses/resp_a",
                "/v1/responses/input_tokens",
                "/v1/responses/compact",
                "/v1/responses/compact?x=1",
                "/v1/responses/input_tokens/cancel",
                "/v1/responses//cancel",
                "/v1/responses/resp_a/",
                "/v1/responses/resp_a/cancel/",
                "/v1/responses/resp_a/delete",
                "/v1/responses/resp_a/input_items/x",
                "/v1/conversations",
                "/v1/conversations/",
                "/v1/conversations/conv_x/",
                "/v1/conversations/conv_x/items/",
                "/v1/conversations/conv_x/items/msg_1/",
                "/v1/conversations/conv_x/items/msg_1/x",
                "/v1/conversations/conv_x/itemsx",
                "/v1/chat/completions",
                "/V1/responses/resp_a",
                "/v2/responses/resp_a",
                "v1/responses/resp_a",
            })
    void find_otherPath_noId(String path) {
        assertThat(paths.find(path)).isEmpty();
    }

    @Test
    void replace_idSegment_restOfPathAndQueryUntouched() {
        String path = "/v1/responses/" + TAG + "/input_items?after=" + TAG + "&limit=5";
        PathId id = paths.find(path).orElseThrow();

        assertThat(paths.replace(path, id, "resp_abc"))
                .isEqualTo("/v1/responses/resp_abc/input_items?after=" + TAG + "&limit=5");
    }

    @Test
    void replace_conversationItem_onlyTheConversationSegment() {
        String path = "/v1/conversations/conv_east.1ef772aa..x/items/conv_east.1ef772aa..x";
        PathId id = paths.find(path).orElseThrow();

        assertThat(paths.replace(path, id, "conv_x")).isEqualTo("/v1/conversations/conv_x/items/conv_east.1ef772aa..x");
    }

    @Test
    void replace_replacementOutsideUnreserved_percentEncoded() {
        String path = "/v1/responses/" + TAG;
        assertThat(paths.replace(path, paths.find(path).orElseThrow(), "a/b?c%d é~._-"))
                .isEqualTo("/v1/responses/a%2Fb%3Fc%25d%20%C3%A9~._-");
    }

    @Test
    void replace_idNotInPath_refused() {
        PathId id = paths.find("/v1/responses/" + TAG).orElseThrow();
        assertThatThrownBy(() -> paths.replace("/v1/responses/resp_other", id, "resp_abc"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void find_tenThousandRandomPaths_neverThrowsAndSegmentIsInPath() {
        String alphabet = "/v1responsconvatiqk_m?%.&=";
        SeededTrials.forAll(
                0xFA7L,
                10_000,
                random -> {
                    StringBuilder path =
                            new StringBuilder(random.nextBoolean() ? "/v1/responses/" : "/v1/conversations/");
                    int length = random.nextInt(40);
                    for (int i = 0; i < length; i++) {
                        path.append(alphabet.charAt(random.nextInt(alphabet.length())));
                    }
                    return path.toString();
                },
                path -> paths.find(path).ifPresent(id -> {
                    assertThat(id.value()).isNotEmpty().doesNotContain("/", "?");
                    assertThat(paths.replace(path, id, "x"))
                            .isEqualTo(path.substring(0, id.start()) + "x" + path.substring(id.end()));
                }));
    }
}
