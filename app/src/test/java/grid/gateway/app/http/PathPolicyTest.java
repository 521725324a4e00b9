package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.routing.grid.Role;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PathPolicyTest {
    private static final EndpointTable TABLE = EndpointTable.standard();

    private final PathPolicy consumer = new PathPolicy(Role.CONSUMER, List.of());
    private final PathPolicy provider = new PathPolicy(Role.PROVIDER, List.of("/v1/chat/completions"));

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/chat/completions",
                "/v1/responses/resp_east.0a1b2c3d..abc",
                "/v1/responses/resp_x/input_items",
                "/v1/conversations/conv_1/items",
                "/v1/models",
                "/v1/responses/input_tokens",
                "/v1/conversations/conv_1/items/msg_1"
            })
    void serves_consumerPlainPaths_served(String path) {
        assertThat(consumer.serves(TABLE.classify(path))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "/",
                "v1/models",
                "/v1/responses/a%2Fb",
                "/v1/responses/a%2fb",
                "/v1/responses/a%5Cb",
                "/v1/responses/a%5cb",
                "/v1/responses/%2E%2E",
                "/v1/responses/%2e",
                "/v1/responses/a\\b",
                "/v1/responses/./x",
                "/v1/responses/../models",
                "/v1/responses/..",
                "/v1/responses/.",
                "/v1//models",
                "/v1/models/",
                "/v1/unknown",
                "/v1/responsesx"
            })
    void serves_consumerEncodedSeparatorsDotsEmptySegmentsOrUnknown_refused(String path) {
        assertThat(consumer.serves(TABLE.classify(path))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/v1/responses/a%20b",
                "/v1/responses/resp_x/input_item%73",
                "/v1/responses/resp_x/%63ancel",
                "/v1/responses/a/b/c",
                "/v1/responses/resp_x/",
                "/v1/conversations/conv_x/items/a/b",
                "/v1/conversations/conv_x/%69tems"
            })
    void serves_consumerEncodedOrUnknownSubPathsOfStoredObjects_refused(String path) {
        // An engine decodes what the gateway never checked.
        assertThat(consumer.serves(TABLE.classify(path))).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/responses/a%2", "/v1/responses/a%", "/v1/responses/...", "/v1/responses/.x"})
    void isPlain_incompleteEscapesAndDotLikeSegments_plain(String path) {
        assertThat(PathPolicy.isPlain(path)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions"})
    void serves_providerAllowedPath_served(String path) {
        assertThat(provider.serves(TABLE.classify(path))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/models", "/v1/responses/resp_x", "/v1/chat/completions/", "/v1//chat/completions"})
    void serves_providerOtherPaths_refused(String path) {
        assertThat(provider.serves(TABLE.classify(path))).isFalse();
    }
}
