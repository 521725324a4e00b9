package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.tag.ClusterDigest;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A body that names a stored id must never reach an engine unpinned, whether the strict
 * scanner cannot read it (UTF-16/32, {@code NaN}; a UTF-8 byte order mark is skipped, as the engine's parser skips it) or the id carries no known tag.
 */
class BodyPinBypassIntegrationTest {
    private static final List<String> PINNABLE =
            List.of("/v1/responses", "/v1/responses/input_tokens", "/v1/responses/compact");

    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static HttpResponse<String> post(String path, byte[] body) {
        return GRID.gateway.send(HttpRequest.newBuilder(GRID.gateway.uri(path))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", "application/json")
                .build());
    }

    private static final String NAMING =
            "{\"model\":\"demo-model\",\"input\":\"hi\",\"previous_response_id\":\"resp_x\"}";

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

    static Stream<Arguments> unreadableBodies() {
        byte[] utf8 = NAMING.getBytes(StandardCharsets.UTF_8);
        return Stream.of(
                Arguments.of("two UTF-8 BOMs", concat(concat(BOM, BOM), utf8)),
                Arguments.of("UTF-16LE", NAMING.getBytes(StandardCharsets.UTF_16LE)),
                Arguments.of("UTF-16BE", NAMING.getBytes(StandardCharsets.UTF_16BE)),
                Arguments.of("UTF-16 with BOM", NAMING.getBytes(StandardCharsets.UTF_16)),
                Arguments.of("UTF-32LE", NAMING.getBytes(Charset.forName("UTF-32LE"))),
                Arguments.of("UTF-32BE", NAMING.getBytes(Charset.forName("UTF-32BE"))),
                Arguments.of(
                        "NaN",
                        "{\"model\":\"demo-model\",\"temperature\":NaN,\"previous_response_id\":\"resp_x\"}"
                                .getBytes(StandardCharsets.UTF_8)),
                Arguments.of(
                        "Infinity",
                        "{\"model\":\"demo-model\",\"top_p\":-Infinity,\"conversation\":{\"id\":\"conv_x\"}}"
                                .getBytes(StandardCharsets.UTF_8)),
                Arguments.of("trailing garbage", (NAMING + "x").getBytes(StandardCharsets.UTF_8)),
                Arguments.of("single quotes", "{'previous_response_id':'resp_x'}".getBytes(StandardCharsets.UTF_8)),
                Arguments.of("empty", new byte[0]));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("unreadableBodies")
    void bodyTheStrictScannerRejects_onAPinnablePath_400_notForwarded(String name, byte[] body) {
        for (String path : PINNABLE) {
            HttpResponse<String> answer = post(path, body);
            assertThat(answer.statusCode()).as(name + " " + path).isEqualTo(400);
            assertThat(answer.body()).contains("\"code\":\"invalid_json\"");
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void utf8ByteOrderMark_onAPinnablePath_readAsPythonReadsIt_untaggedId404_taggedIdPinnedAndStripped() {
        for (String path : PINNABLE) {
            HttpResponse<String> answer = post(path, concat(BOM, NAMING.getBytes(StandardCharsets.UTF_8)));
            assertThat(answer.statusCode()).as(path).isEqualTo(404);
            assertThat(answer.body()).contains("No stored response or conversation has that id.");
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);

        String tagged = "resp_east." + ClusterDigest.of("east-a") + "..r1";
        byte[] body = concat(BOM, NAMING.replace("resp_x", tagged).getBytes(StandardCharsets.UTF_8));
        assertThat(post("/v1/responses", body).statusCode()).isEqualTo(200);

        assertThat(GRID.forwarded())
                .extracting(ScriptedUpstream.Request::body)
                .containsExactly(concat(BOM, NAMING.replace("resp_x", "resp_r1").getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void unreadableBody_onAPathThatCannotNameAStoredId_stillForwardedUnchanged() {
        byte[] bom = concat(BOM, "{\"model\":\"demo-model\",\"messages\":[]}".getBytes(StandardCharsets.UTF_8));
        int before = GRID.engine.requests().size();

        assertThat(post("/v1/chat/completions", bom).statusCode()).isEqualTo(200);

        assertThat(GRID.engine.requests().get(before).body()).isEqualTo(bom);
    }

    @ParameterizedTest
    @ValueSource(strings = {"msg_x", "Resp_x", "x", "", "resp_", "conv_x", "resp_east", "RESP_east.12345678..x"})
    void bodyIdWithoutAKnownTag_404_notForwarded(String id) {
        String quoted = "\"" + id + "\"";
        for (String path : PINNABLE) {
            for (String body : List.of(
                    "{\"model\":\"demo-model\",\"previous_response_id\":" + quoted + "}",
                    "{\"model\":\"demo-model\",\"conversation\":" + quoted + "}",
                    "{\"model\":\"demo-model\",\"conversation\":{\"id\":" + quoted + "}}",
                    "{\"model\":\"demo-model\",\"previous_response_id\":\"\\u00" + "7" + "8" + id + "\"}")) {
                HttpResponse<String> answer = post(path, body.getBytes(StandardCharsets.UTF_8));
                assertThat(answer.statusCode()).as(path + " " + body).isEqualTo(404);
                assertThat(answer.body()).contains("No stored response or conversation has that id.");
            }
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void nullOrAbsentIds_forwardedOnLoad() {
        int before = GRID.engine.requests().size();
        assertThat(post(
                                "/v1/responses",
                                "{\"model\":\"demo-model\",\"input\":\"hi\",\"previous_response_id\":null}"
                                        .getBytes(StandardCharsets.UTF_8))
                        .statusCode())
                .isEqualTo(200);
        assertThat(post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}".getBytes(StandardCharsets.UTF_8))
                        .statusCode())
                .isEqualTo(200);
        assertThat(GRID.engine.requests().size()).isEqualTo(before + 2);
    }
}
