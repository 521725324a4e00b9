package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.routing.grid.Role;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which raw paths each role serves (docs/reliability-checklist.md E 66–69, docs/design.md §8): a provider only its exact allowed paths, a
 * consumer the four APIs and their stored-object paths; neither serves vLLM's operational endpoints or any path
 * that could mean something else once decoded or normalised.
 */
class PathPolicyRolesTest {
    private static final EndpointTable TABLE = EndpointTable.standard();

    private static final List<String> ALLOWED =
            List.of("/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/responses");
    private static final PathPolicy PROVIDER = new PathPolicy(Role.PROVIDER, ALLOWED);
    private static final PathPolicy CONSUMER = new PathPolicy(Role.CONSUMER, ALLOWED);

    /** vLLM's operational and unauthenticated endpoints (vLLM docs/usage/security.md and its API server). */
    private static final String[] OPERATIONAL = {
        "/pause",
        "/resume",
        "/collective_rpc",
        "/invocations",
        "/tokenize",
        "/detokenize",
        "/v1/load_lora_adapter",
        "/v1/unload_lora_adapter",
        "/reset_prefix_cache",
        "/sleep",
        "/wake_up",
        "/is_sleeping",
        "/update_weights",
        "/scale_elastic_ep",
        "/is_scaling_elastic_ep",
        "/metrics",
        "/server_info",
        "/health",
        "/ping",
        "/version",
        "/load",
        "/v1/audio/transcriptions",
        "/v1/embeddings",
        "/pooling",
        "/classify",
        "/score",
        "/rerank",
        "/v1/rerank",
        "/start_profile",
        "/stop_profile"
    };

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/responses"})
    void provider_exactAllowedPath_served(String path) {
        assertThat(PROVIDER.serves(TABLE.classify(path))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/responses/resp_east.1ef772aa..abc",
                "/v1/responses/resp_east.1ef772aa..abc/cancel",
                "/v1/conversations",
                "/v1/conversations/conv_east.1ef772aa..c1",
                "/v1/models",
                "/v1/messages/count_tokens"
            })
    void provider_storedObjectsAndOtherApiPaths_refused(String path) {
        assertThat(PROVIDER.serves(TABLE.classify(path))).isFalse();
        // The same paths are the consumer's to serve.
        assertThat(CONSUMER.serves(TABLE.classify(path))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/chat/completions/",
                "//v1/chat/completions",
                "/v1//chat/completions",
                "/v1/./chat/completions",
                "/v1/x/../chat/completions",
                "/v1/%2e%2e/pause",
                "/v1/%2E/chat/completions",
                "/v1/chat%2Fcompletions",
                "/v1/chat%2fcompletions",
                "/v1%5Cchat/completions",
                "/v1\\chat/completions",
                "/v1/chat/completions;x",
                "/v1/chat/completions;",
                "/V1/chat/completions",
                "/v1/Chat/completions",
                "*",
                "",
                "/",
                "v1/chat/completions",
                "/v1/chat/completions%00",
                "/v1/chat/completions%20"
            })
    void bothRoles_pathVariantsOfAllowedPaths_refused(String path) {
        assertThat(PROVIDER.serves(TABLE.classify(path))).as("provider").isFalse();
        assertThat(CONSUMER.serves(TABLE.classify(path))).as("consumer").isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/responses/..", "/v1/responses/.", "/v1/conversations/%2e%2e/x", "/v1/responses//x"})
    void consumer_dotOrEmptySegmentsUnderStoredObjectPaths_refused(String path) {
        assertThat(CONSUMER.serves(TABLE.classify(path))).isFalse();
    }

    @org.junit.jupiter.api.Test
    void bothRoles_vllmOperationalEndpoints_refused() {
        for (String path : OPERATIONAL) {
            assertThat(PROVIDER.serves(TABLE.classify(path)))
                    .as("provider " + path)
                    .isFalse();
            assertThat(CONSUMER.serves(TABLE.classify(path)))
                    .as("consumer " + path)
                    .isFalse();
            assertThat(CONSUMER.serves(TABLE.classify(path + "/")))
                    .as("consumer " + path + "/")
                    .isFalse();
        }
    }

    @org.junit.jupiter.api.Test
    void provider_operationalEndpointListedInAllowedPaths_isServedExactlyAsConfigured() {
        // The operator decides: an allowed path is matched exactly, nothing else is implied.
        PathPolicy tokenizing = new PathPolicy(Role.PROVIDER, List.of("/tokenize"));
        assertThat(tokenizing.serves(TABLE.classify("/tokenize"))).isTrue();
        assertThat(tokenizing.serves(TABLE.classify("/tokenize/"))).isFalse();
        assertThat(tokenizing.serves(TABLE.classify("/detokenize"))).isFalse();
    }
}
