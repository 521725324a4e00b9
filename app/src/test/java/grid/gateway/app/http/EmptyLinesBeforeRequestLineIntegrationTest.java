package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Empty lines (CRLF) before a request line are ignored, on both listeners (RFC 9112 §2.2: a server SHOULD ignore at
 * least one): a client that ends a POST's body with an extra CRLF gets the request it sends next on that connection
 * served, not a 400 that closes the connection. A bare LF is still refused, as are more empty lines than a request
 * line's limit (4096 bytes), and an empty line inside a head still ends it.
 */
class EmptyLinesBeforeRequestLineIntegrationTest {
    private static final String BODY =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"max_tokens\":2}";

    @TempDir
    static Path dir;

    private static EngineSimulator engine;
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        engine = GatewayHarness.engine("east-a");
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        engine.close();
    }

    private static String chat(String headers) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                + BODY.getBytes(StandardCharsets.UTF_8).length + "\r\n" + headers + "\r\n" + BODY;
    }

    private static RawHttp.Reply exchange(int port, String bytes, int answers) {
        try (RawHttp raw = new RawHttp(port)) {
            return raw.send(bytes).readResponses(answers);
        }
    }

    @Test
    void aCrlfAfterABody_theNextRequestOnTheConnectionIsServed() {
        RawHttp.Reply reply = exchange(gateway.server.port(), chat("") + "\r\n" + chat("Connection: close\r\n"), 2);

        assertThat(reply.responses()).as(reply.text()).isEqualTo(2);
        assertThat(reply.text()).doesNotContain(" 400 ").contains("chat.completion");
        assertThat(reply.text().split("HTTP/1\\.1 200 ", -1)).as(reply.text()).hasSize(3);
    }

    @Test
    void emptyLinesBeforeTheFirstRequestLine_areIgnored() {
        RawHttp.Reply reply = exchange(gateway.server.port(), "\r\n\r\n\r\n" + chat("Connection: close\r\n"), 1);

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
    }

    @Test
    void theAdminListener_ignoresThemToo() {
        RawHttp.Reply reply = exchange(
                gateway.server.adminPort(),
                "\r\nGET /health/ready HTTP/1.1\r\nHost: gw\r\n\r\n\r\n"
                        + "GET /health/live HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n",
                2);

        assertThat(reply.responses()).as(reply.text()).isEqualTo(2);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.text()).doesNotContain(" 400 ");
    }

    @Test
    void aBareLf_orMoreEmptyLinesThanARequestLinesLimit_isStillRefused() {
        RawHttp.Reply bareLf = exchange(gateway.server.port(), "\n" + chat("Connection: close\r\n"), 1);
        RawHttp.Reply endless =
                exchange(gateway.server.port(), "\r\n".repeat(2_049) + chat("Connection: close\r\n"), 1);

        assertThat(bareLf.status()).as(bareLf.text()).isEqualTo(400);
        assertThat(endless.status()).as(endless.text()).isEqualTo(400);
        assertThat(endless.text()).contains("Connection: close");
    }

    @Test
    void anEmptyFieldValue_andTheHeadsEmptyLine_areNotSkipped() {
        // A field with an empty value is followed at once by its line end, and the empty line after the fields ends
        // the head: neither is taken for an empty line before a request line.
        RawHttp.Reply reply = exchange(gateway.server.port(), chat("X-Empty:\r\nConnection: close\r\n"), 1);

        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
    }
}
