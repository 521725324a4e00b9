package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A request Helidon's parser refuses before routing (answered by {@code ParseRefusal}) has a request id and an access
 * line like every other answer: {@code X-Request-Id} on the answer (the client's when well-formed), the id in the
 * error body, and one line with its method, its path (stored ids replaced), its status and {@code end: refused}.
 */
class RefusedHeadAccessLineIntegrationTest {
    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static final Pattern REQUEST_ID = Pattern.compile("(?im)^X-Request-Id: *(\\S+)");

    static Stream<Arguments> refusals() {
        String tag = "resp" + ApiPath.TAG + "abc";
        return Stream.of(
                Arguments.of(
                        "POST /v1/messages HTTP/1.1\r\nHost: gw\r\nX-A: a\r\n folded\r\nContent-Length: 2\r\n\r\n{}",
                        400,
                        "\"method\":\"POST\",\"path\":\"/v1/messages\""),
                Arguments.of(
                        "GET /v1/responses/" + tag
                                + " HTTP/1.1\r\nHost: a\r\nHost: b\r\nX-Request-Id: client-id-7\r\n\r\n",
                        400,
                        "\"request_id\":\"client-id-7\",\"method\":\"GET\",\"path\":\"/v1/responses/{id}\""),
                Arguments.of("GET /v1/models?q=" + "a".repeat(5000) + " HTTP/1.1\r\nHost: gw\r\n\r\n", 414, ""),
                Arguments.of("GET /v1/models HTTP/1.0\r\nHost: gw\r\n\r\n", 505, ""),
                Arguments.of(
                        "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                        501,
                        "\"method\":\"POST\",\"path\":\"/v1/chat/completions\""),
                Arguments.of("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 400, ""));
    }

    @ParameterizedTest(name = "{1}: {0}")
    @MethodSource("refusals")
    void parserRefusal_hasARequestIdAndAnAccessLine(String request, int status, String logged) {
        RawHttp.Reply reply;
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            reply = client.send(request).readResponses(1);
        }
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        Matcher id = REQUEST_ID.matcher(reply.text());
        assertThat(id.find()).as("X-Request-Id on %s", reply.text()).isTrue();
        assertThat(reply.body()).contains("\"request_id\":\"" + id.group(1) + "\"");
        GatewayHarness.await(
                "the access line of " + id.group(1), () -> line(id.group(1)).size() == 1);
        String line = line(id.group(1)).getFirst();
        assertThat(line)
                .contains("\"status\":" + status + ",")
                .contains("\"end\":\"refused\"")
                .contains("\"client\":\"127.0.0.1\"")
                .contains(logged)
                .doesNotContain("resp_east");
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    private static List<String> line(String id) {
        return GRID.gateway.accessLog.raw().stream()
                .filter(l -> l.contains("\"request_id\":\"" + id + "\""))
                .toList();
    }
}
