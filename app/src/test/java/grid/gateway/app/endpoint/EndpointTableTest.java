package grid.gateway.app.endpoint;

import static io.helidon.http.Method.DELETE;
import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.endpoint.Endpoint.Handling;
import grid.gateway.app.rewrite.PathId;
import grid.gateway.app.rewrite.PathIds;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.testing.SeededTrials;
import io.helidon.http.Method;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Classifying a raw request path into its endpoint, once (docs/design.md §4, §5, §8). */
class EndpointTableTest {
    private static final EndpointTable TABLE = EndpointTable.standard();

    private static Endpoint endpoint(String path) {
        return TABLE.classify(path).endpoint();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "/v1/chat/completions, CHAT_COMPLETIONS",
        "/v1/completions, COMPLETIONS",
        "/v1/messages, MESSAGES",
        "/v1/messages/count_tokens, MESSAGES",
        "/v1/responses, RESPONSES",
        "/v1/responses/input_tokens, RESPONSES",
        "/v1/responses/compact, RESPONSES",
    })
    void classify_createAndCountPaths_keyedAsTheirApi(String path, ApiDialect dialect) {
        assertThat(endpoint(path).keyedAs()).contains(dialect);
        assertThat(endpoint(path).methods()).containsExactly(POST);
        assertThat(endpoint(path).handling()).isEqualTo(Handling.FORWARD);
        assertThat(TABLE.classify(path).listed()).isTrue();
    }

    @Test
    void loggedPath_neverCarriesAStoredId_listedOrNot_andAnUnlistedEndpointIsNamedWithoutIt() {
        assertThat(TABLE.classify("/v1/responses/resp_a?x=1").loggedPath()).isEqualTo("/v1/responses/{id}");
        assertThat(TABLE.classify("/v1/chat/completions?x=1").loggedPath()).isEqualTo("/v1/chat/completions");
        Classified unlisted = TABLE.classify("/v1/responses/resp_a/Cancel?x=1");
        assertThat(unlisted.listed()).isFalse();
        assertThat(unlisted.loggedPath()).isEqualTo("/v1/responses/{id}/Cancel");
        // Traces name a request by its endpoint's path.
        assertThat(unlisted.endpoint().path()).isEqualTo("/v1/responses/{id}/Cancel");
        // A placeholder that is not the pinning id takes any segment: one spelled as an id is redacted too.
        Classified item = TABLE.classify("/v1/conversations/conv_a/items/resp_b");
        assertThat(item.listed()).isTrue();
        assertThat(item.loggedPath()).isEqualTo("/v1/conversations/{id}/items/{id}");
        assertThat(TABLE.classify("/v1/conversations/conv_a/items/%72esp_b").loggedPath())
                .isEqualTo("/v1/conversations/{id}/items/{id}");
    }

    @Test
    void classify_methodsEachPathDefines() {
        assertThat(endpoint("/v1/models").methods()).containsExactly(GET);
        assertThat(endpoint("/v1/conversations").methods()).containsExactly(POST);
        assertThat(endpoint("/v1/responses/resp_x").methods()).containsExactly(GET, DELETE);
        assertThat(endpoint("/v1/responses/resp_x/cancel").methods()).containsExactly(POST);
        assertThat(endpoint("/v1/responses/resp_x/input_items").methods()).containsExactly(GET);
        assertThat(endpoint("/v1/conversations/conv_x").methods()).containsExactly(GET, POST, DELETE);
        assertThat(endpoint("/v1/conversations/conv_x/items").methods()).containsExactly(GET, POST);
        assertThat(endpoint("/v1/conversations/conv_x/items/msg_1").methods()).containsExactly(GET, DELETE);
        assertThat(endpoint("/v1/conversations/conv_x/items/msg_1").allowHeader())
                .isEqualTo("GET, DELETE");
    }

    @Test
    void classify_storedObjectPaths_taggedUnkeyed() {
        for (String path : List.of(
                "/v1/responses",
                "/v1/responses/compact",
                "/v1/responses/resp_x",
                "/v1/responses/resp_x/cancel",
                "/v1/conversations",
                "/v1/conversations/conv_x/items/msg_1")) {
            assertThat(endpoint(path).tagsAnswers()).as(path).isTrue();
        }
        assertThat(endpoint("/v1/responses/resp_x").keyedAs()).isEmpty();
        assertThat(endpoint("/v1/chat/completions").tagsAnswers()).isFalse();
        assertThat(endpoint("/v1/messages").tagsAnswers()).isFalse();
    }

    @Test
    void classify_onlyCountingCalls_doNotPrefill() {
        assertThat(endpoint("/v1/messages/count_tokens").prefills()).isFalse();
        assertThat(endpoint("/v1/responses/input_tokens").prefills()).isFalse();
        assertThat(endpoint("/v1/responses").prefills()).isTrue();
        assertThat(endpoint("/v1/chat/completions").prefills()).isTrue();
    }

    @Test
    void classify_responsesCreatePaths_namingIdsInBody() {
        assertThat(endpoint("/v1/responses").idsInBody()).isTrue();
        assertThat(endpoint("/v1/responses/input_tokens").idsInBody()).isTrue();
        assertThat(endpoint("/v1/responses/compact").idsInBody()).isTrue();
        assertThat(endpoint("/v1/chat/completions").idsInBody()).isFalse();
        assertThat(endpoint("/v1/conversations").idsInBody()).isFalse();
    }

    @Test
    void classify_specialHandling() {
        assertThat(endpoint("/v1/models").handling()).isEqualTo(Handling.MODEL_LIST);
        assertThat(endpoint("/v1/conversations").handling()).isEqualTo(Handling.NEW_CONVERSATION);
        assertThat(endpoint("/v1/conversations/conv_x").handling()).isEqualTo(Handling.FORWARD);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "/v1/messages, ANTHROPIC",
        "/v1/messages/count_tokens, ANTHROPIC",
        "/v1/messages/batches, ANTHROPIC",
        "/v1/messages/batches/msgbatch_1/results, ANTHROPIC",
        "/v1/messagesx, OPENAI",
        "/v1/chat/completions, OPENAI",
        "/v1/responses/resp_x, OPENAI",
        "/v1/unknown, OPENAI",
        "/, OPENAI",
    })
    void classify_errorShape_fromTheRowOrTheRowAPathLiesUnder(String path, ErrorShape shape) {
        assertThat(endpoint(path).errors()).isEqualTo(shape);
    }

    @Test
    void classify_unlistedPath_postOnlyUnkeyedTaggedLikeItsParent() {
        Classified batches = TABLE.classify("/v1/messages/batches");
        assertThat(batches.listed()).isFalse();
        assertThat(batches.endpoint().methods()).containsExactly(POST);
        assertThat(batches.endpoint().keyedAs()).isEmpty();
        assertThat(batches.endpoint().tagsAnswers()).isFalse();
        assertThat(endpoint("/v1/responses/resp_x/cancel/now").tagsAnswers()).isTrue();
        assertThat(endpoint("/v1/conversations/conv_x/").tagsAnswers()).isTrue();
        assertThat(endpoint("/v1/responsesx").tagsAnswers()).isFalse();
        assertThat(endpoint("/v1/tokenize").tagsAnswers()).isFalse();
    }

    @Test
    void classify_placeholder_neverAWordAnotherRowSpells() {
        assertThat(TABLE.classify("/v1/responses/compact").pathId()).isEmpty();
        assertThat(TABLE.classify("/v1/responses/compact/cancel").listed()).isFalse();
        assertThat(TABLE.classify("/v1/responses/compact2/cancel").pathId())
                .map(PathId::value)
                .contains("compact2");
    }

    @Test
    void with_extraRow_classifiedByItsRowAndTheRestUnchanged() {
        EndpointTable more = TABLE.with(
                Endpoint.at("/v1/responses/{response_id}/fork", POST, GET).tagged());

        Classified fork = more.classify("/v1/responses/resp_x/fork");
        assertThat(fork.listed()).isTrue();
        assertThat(fork.endpoint().methods()).containsExactly(POST, GET);
        assertThat(fork.pathId()).map(PathId::kind).contains(IdKind.RESP);
        assertThat(TABLE.classify("/v1/responses/resp_x/fork").listed()).isFalse();
        assertThat(more.classify("/v1/responses/resp_x/cancel").endpoint())
                .isEqualTo(TABLE.classify("/v1/responses/resp_x/cancel").endpoint());
    }

    @Test
    void constructor_duplicateOrMalformedPath_refused() {
        assertThatThrownBy(() -> TABLE.with(Endpoint.at("/v1/completions")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TABLE.with(Endpoint.at("v1/x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TABLE.with(Endpoint.at("/v1//x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TABLE.with(Endpoint.at("/v1/x/"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Endpoint(
                        "/v1/x",
                        List.<Method>of(),
                        Handling.FORWARD,
                        Optional.empty(),
                        false,
                        true,
                        false,
                        ErrorShape.OPENAI))
                .isInstanceOf(IllegalArgumentException.class);
    }

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
    void classify_idPath_segmentAsSent(String path, IdKind kind, String id) {
        Optional<PathId> found = TABLE.classify(path).pathId();

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
    void classify_otherPath_noId(String path) {
        assertThat(TABLE.classify(path).pathId()).isEmpty();
    }

    @Test
    void classify_tenThousandRandomPaths_neverThrowsAndIdSegmentIsInPath() {
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
                path -> TABLE.classify(path).pathId().ifPresent(id -> {
                    assertThat(id.value()).isNotEmpty().doesNotContain("/", "?");
                    assertThat(new PathIds().replace(path, id, "x"))
                            .isEqualTo(path.substring(0, id.start()) + "x" + path.substring(id.end()));
                }));
    }
}
