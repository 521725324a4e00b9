package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client side of the HTTP/1.1 edge on real sockets, with a raw client: {@code Connection: close} ends the
 * connection after its answer; no {@code 100 Continue} follows a refusal; methods are case-sensitive; a header with
 * an empty name or an obs-text byte is refused, never altered; HTTP/1.0 is refused with a reason in the API's shape.
 * None of the refused requests reaches the engine: after each, a request the engine serves is the first it records.
 */
class ClientEdgeIntegrationTest {
    private static final String CHAT = "/v1/chat/completions";
    private static final String BODY =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @TempDir
    static Path dir;

    private static final AtomicInteger BARRIERS = new AtomicInteger();

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

    private static String request(String method, String path, String version, String headers, String body) {
        return method + " " + path + " " + version
                + "\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                + body.getBytes(StandardCharsets.UTF_8).length + "\r\n" + headers + "\r\n" + body;
    }

    private static RawHttp.Reply exchange(String bytes) {
        try (RawHttp raw = new RawHttp(gateway.server.port())) {
            return raw.send(bytes).read(1_000);
        }
    }

    /**
     * Proves that no request sent before was forwarded: a request the engine serves, sent now on a connection of its
     * own, is the first one the engine recorded since the last check. Every exchange before it has ended (answered,
     * and closed where the gateway closes), and the gateway forwards a request before it answers it, so a request it
     * forwarded would be recorded before this one. A look at the engine's queue at once, with nothing after it, would
     * pass while a wrong forward was still on its way.
     */
    private static void engineReceivedNothing() {
        String marker = "barrier-" + BARRIERS.incrementAndGet();
        // Connection: close, so that its read ends at the gateway's close rather than after a quiet second.
        RawHttp.Reply barrier = exchange(request(
                "POST", CHAT, "HTTP/1.1", "Connection: close\r\n", BODY.replace("\"hi\"", "\"" + marker + "\"")));
        assertThat(barrier.status()).as(barrier.text()).isEqualTo(200);
        assertThat(GatewayHarness.take(engine).body())
                .as("the first request the engine recorded since the last check")
                .contains(marker);
    }

    @Test
    void connectionClose_fromTheClient_endsTheConnectionAfterTheAnswer() throws InterruptedException {
        // A second request pipelined behind one that said Connection: close is never read.
        RawHttp.Reply reply = exchange(request("POST", CHAT, "HTTP/1.1", "Connection: close\r\n", BODY)
                + request("POST", CHAT, "HTTP/1.1", "", BODY));

        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.responses()).isEqualTo(1);
        assertThat(reply.text()).containsIgnoringCase("connection: close");
        assertThat(reply.closed()).isTrue();
        GatewayHarness.take(engine);
        engineReceivedNothing();
    }

    @Test
    void expectContinue_refusedBody_getsItsAnswer_neverA100() throws InterruptedException {
        String tooLarge = "POST " + CHAT + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n";
        String unknownPath = tooLarge.replace(CHAT, "/v1/nowhere").replace("100000", "10");

        for (String head : new String[] {tooLarge, unknownPath}) {
            RawHttp.Reply reply = exchange(head);
            assertThat(reply.text()).as(head).doesNotContain("100 Continue");
            assertThat(reply.responses()).isEqualTo(1);
            assertThat(reply.status()).isIn(413, 404);
            assertThat(reply.closed()).isTrue();
        }
        engineReceivedNothing();
    }

    @Test
    void expectContinue_acceptedBody_getsA100_thenItsAnswer() {
        try (RawHttp raw = new RawHttp(gateway.server.port())) {
            raw.send("POST " + CHAT + " HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: "
                    + BODY.length() + "\r\nExpect: 100-continue\r\n\r\n");
            assertThat(raw.read(500).text()).startsWith("HTTP/1.1 100 Continue");
            RawHttp.Reply answer = raw.send(BODY).readResponses(1);
            assertThat(answer.status()).isEqualTo(200);
        }
        GatewayHarness.take(engine);
    }

    @Test
    void methods_areCaseSensitive_aFoldedOneIs501_neverForwarded() throws InterruptedException {
        for (String method : new String[] {"post", "Post", "pOST"}) {
            RawHttp.Reply reply = exchange(request(method, CHAT, "HTTP/1.1", "", BODY));
            assertThat(reply.status()).as(method).isEqualTo(501);
            assertThat(reply.body()).contains("\"code\":\"method_not_implemented\"");
            // Closed by the gateway (the body is unread): it is done with the request.
            assertThat(reply.closed()).as(method).isTrue();
        }
        RawHttp.Reply messages = exchange(request("post", "/v1/messages", "HTTP/1.1", "", BODY));
        assertThat(messages.status()).isEqualTo(501);
        assertThat(messages.body()).startsWith("{\"type\":\"error\"");
        RawHttp.Reply models = exchange("get /v1/models HTTP/1.1\r\nHost: gw\r\n\r\n");
        assertThat(models.status()).isEqualTo(501);
        engineReceivedNothing();
        assertThat(gateway.metric("grid_requests_refused_total", "reason=\"method_not_implemented\""))
                .isEqualTo(5);

        // The same requests in the method's own name are served.
        assertThat(exchange(request("POST", CHAT, "HTTP/1.1", "", BODY)).status())
                .isEqualTo(200);
        GatewayHarness.take(engine);
    }

    @Test
    void headers_obsTextOrAnEmptyName_400_neverAltered_neverForwarded() throws InterruptedException {
        String[] bad = {"X-Note: caf\u00e9\r\n", "X-Note: \u00ff\r\n", "Authorization: Bearer k\u0080y\r\n", ": v\r\n"};
        for (String header : bad) {
            RawHttp.Reply reply = exchange(request("POST", CHAT, "HTTP/1.1", header, BODY));
            assertThat(reply.status()).as(header).isEqualTo(400);
            assertThat(reply.body()).contains("\"code\":\"invalid_header\"");
            assertThat(reply.closed()).isTrue();
        }
        engineReceivedNothing();
        assertThat(gateway.metric("grid_requests_refused_total", "reason=\"invalid_header\""))
                .isEqualTo(bad.length);
    }

    @Test
    void http10_refused505_inTheApisShape_withTheReason() throws InterruptedException {
        RawHttp.Reply first = exchange(request("POST", CHAT, "HTTP/1.0", "", BODY));
        RawHttp.Reply anthropic = exchange(request("POST", "/v1/messages", "HTTP/1.0", "", BODY));
        RawHttp.Reply afterOne =
                exchange("GET /v1/models HTTP/1.1\r\nHost: gw\r\n\r\n" + request("POST", CHAT, "HTTP/1.0", "", BODY));

        assertThat(first.status()).isEqualTo(505);
        assertThat(first.body())
                .contains("\"code\":\"http_version_not_supported\"")
                .contains("proxy_http_version 1.1");
        assertThat(first.closed()).isTrue();
        assertThat(anthropic.body()).startsWith("{\"type\":\"error\"").contains("HTTP/1.0 is not supported");
        assertThat(anthropic.closed()).isTrue();
        assertThat(afterOne.closed()).isTrue();
        assertThat(afterOne.responses()).isEqualTo(2);
        assertThat(afterOne.text()).contains("HTTP/1.1 505 ");
        engineReceivedNothing();
        assertThat(gateway.metric("grid_requests_refused_total", "reason=\"http_version\""))
                .isEqualTo(3);
    }
}
