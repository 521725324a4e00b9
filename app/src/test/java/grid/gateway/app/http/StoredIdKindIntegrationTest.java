package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.tag.ClusterDigest;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A well-formed tag of the other kind where a stored id is read (docs/stored-ids.md): a conversation's tag where a
 * response id is expected (a {@code /v1/responses/{id}…} path, {@code previous_response_id}) and a response's tag
 * where a conversation id is expected (a {@code /v1/conversations/{id}…} path, {@code conversation},
 * {@code conversation.id}) names no stored object there. It answers the one 404 of every unknown id, its request id aside,
 * counts {@code not_found}, and reaches no engine, though the tag names a cluster of the grid that admits requests.
 */
class StoredIdKindIntegrationTest {
    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static final String DIGEST = ClusterDigest.of("east-a");
    private static final String RESP = "resp_east." + DIGEST + "..r1";
    private static final String CONV = "conv_east." + DIGEST + "..c1";
    private static final String UNKNOWN = "resp_east." + DIGEST + ".x.r1";

    private static HttpResponse<String> send(String method, String path, String body) {
        return GRID.gateway.send(HttpRequest.newBuilder(GRID.gateway.uri(path))
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .build());
    }

    private static double notFound() {
        return GRID.gateway.metric("grid_route_pinned_total", "outcome=\"not_found\"");
    }

    private static void assertUnknownIdAnswer(HttpResponse<String> answer, String what) {
        HttpResponse<String> unknown = GRID.gateway.get("/v1/responses/" + UNKNOWN);
        assertThat(answer.statusCode()).as(what).isEqualTo(404);
        assertThat(withoutRequestId(answer.body())).as(what).isEqualTo(withoutRequestId(unknown.body()));
    }

    /** The body without its {@code request_id}, which is each request's own. */
    private static String withoutRequestId(String body) {
        return body.replaceAll("\"request_id\":\"[^\"]*\"", "");
    }

    @Test
    void conversationTagInAResponsePath_404_notForwarded() {
        List<String[]> calls = List.of(
                new String[] {"GET", "/v1/responses/" + CONV},
                new String[] {"DELETE", "/v1/responses/" + CONV},
                new String[] {"POST", "/v1/responses/" + CONV + "/cancel"},
                new String[] {"GET", "/v1/responses/" + CONV + "/input_items?limit=5"});
        for (String[] call : calls) {
            double before = notFound();
            HttpResponse<String> answer = send(call[0], call[1], null);
            assertUnknownIdAnswer(answer, call[0] + " " + call[1]);
            assertThat(notFound()).as(call[1]).isEqualTo(before + 2);
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void responseTagInAConversationPath_404_notForwarded() {
        List<String[]> calls = List.of(
                new String[] {"GET", "/v1/conversations/" + RESP},
                new String[] {"POST", "/v1/conversations/" + RESP},
                new String[] {"DELETE", "/v1/conversations/" + RESP},
                new String[] {"GET", "/v1/conversations/" + RESP + "/items"},
                new String[] {"POST", "/v1/conversations/" + RESP + "/items"},
                new String[] {"GET", "/v1/conversations/" + RESP + "/items/msg_1"},
                new String[] {"DELETE", "/v1/conversations/" + RESP + "/items/msg_1"});
        for (String[] call : calls) {
            HttpResponse<String> answer = send(call[0], call[1], call[0].equals("POST") ? "{\"items\":[]}" : null);
            assertUnknownIdAnswer(answer, call[0] + " " + call[1]);
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/v1/responses", "/v1/responses/input_tokens", "/v1/responses/compact"})
    void tagOfTheOtherKindInABodyField_404_notForwarded(String path) {
        List<String> bodies = List.of(
                "{\"model\":\"demo-model\",\"input\":\"hi\",\"previous_response_id\":\"" + CONV + "\"}",
                "{\"model\":\"demo-model\",\"input\":\"hi\",\"conversation\":\"" + RESP + "\"}",
                "{\"model\":\"demo-model\",\"input\":\"hi\",\"conversation\":{\"id\":\"" + RESP + "\"}}",
                "{\"model\":\"demo-model\",\"previous_response_id\":\"" + RESP + "\",\"conversation\":\"" + RESP
                        + "\"}",
                "{\"model\":\"demo-model\",\"previous_response_id\":\"" + CONV + "\",\"conversation\":\"" + CONV
                        + "\"}",
                "{\"model\":\"demo-model\",\"previous_response_id\":\"" + CONV.replace("conv_", "\\u0063onv_") + "\"}");
        for (String body : bodies) {
            HttpResponse<String> answer = GRID.gateway.post(path, body);
            assertUnknownIdAnswer(answer, path + " " + body);
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void eachKindInItsOwnPlace_stillForwarded() {
        assertThat(send("GET", "/v1/responses/" + RESP, null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/v1/conversations/" + CONV + "/items", null).statusCode())
                .isEqualTo(200);
        assertThat(GRID.gateway
                        .post(
                                "/v1/responses",
                                "{\"model\":\"demo-model\",\"previous_response_id\":\"" + RESP
                                        + "\",\"conversation\":{\"id\":\"" + CONV + "\"}}")
                        .statusCode())
                .isEqualTo(200);
        assertThat(GRID.forwarded())
                .extracting(ScriptedUpstream.Request::target)
                .containsExactly("/v1/responses/resp_r1", "/v1/conversations/conv_c1/items", "/v1/responses");
    }
}
