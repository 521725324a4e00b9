package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Inbound HTTP/1.1 framing on real sockets (reliability A1–A6, A10, A14, A15): a raw client sends the bytes, a raw
 * engine records every byte it gets. Helidon parses the framing; these tests pin the answers we rely on, so that an
 * upgrade that changes them fails here, and prove that nothing of a refused request reaches an GRID.engine.
 */
class InboundFramingIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    /** A request an attacker hopes the engine sees: vLLM's unauthenticated pause endpoint. */
    private static final String HIDDEN = "GET /pause HTTP/1.1\r\nHost: engine\r\n\r\n";

    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    /** Sends {@code request} and reads until the server closes or {@code responses} answers arrived. */
    private static RawHttp.Reply exchange(String request, int responses) {
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            client.send(request);
            return client.readResponses(responses);
        }
    }

    private static RawHttp.Reply exchange(String request) {
        return exchange(request, 1);
    }

    private static String post(String headers, String body) {
        return "POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n" + headers + "\r\n"
                + body;
    }

    static Stream<Arguments> badFraming() {
        String chunkedChat = Integer.toHexString(CHAT.length()) + "\r\n" + CHAT + "\r\n0\r\n\r\n";
        return Stream.of(
                Arguments.of(
                        "A1 CL + TE chunked",
                        post("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", chunkedChat),
                        400),
                Arguments.of(
                        "A1 TE chunked + CL",
                        post("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", chunkedChat),
                        400),
                Arguments.of("A2 TE gzip, not chunked", post("Transfer-Encoding: gzip\r\n", CHAT), 400),
                Arguments.of(
                        "A2 TE gzip + CL",
                        post("Transfer-Encoding: gzip\r\nContent-Length: " + CHAT.length() + "\r\n", CHAT),
                        400),
                Arguments.of("A3 TE gzip, chunked", post("Transfer-Encoding: gzip, chunked\r\n", chunkedChat), 501),
                Arguments.of("A4 two equal CL", post("Content-Length: 5\r\nContent-Length: 5\r\n", "hello"), 400),
                Arguments.of("A4 two different CL", post("Content-Length: 5\r\nContent-Length: 6\r\n", "hello!"), 400),
                Arguments.of("A4 CL list", post("Content-Length: 5, 5\r\n", "hello"), 400),
                Arguments.of("A5 empty CL", post("Content-Length: \r\n", "hello"), 400),
                Arguments.of("A5 CL -1", post("Content-Length: -1\r\n", "hello"), 400),
                Arguments.of("A5 CL +5", post("Content-Length: +5\r\n", "hello"), 400),
                Arguments.of("A5 CL -0", post("Content-Length: -0\r\n", "hello"), 400),
                Arguments.of("A5 CL overflow", post("Content-Length: 99999999999999999999\r\n", "hello"), 400),
                Arguments.of(
                        "A6 TE with space before colon", post("Transfer-Encoding : chunked\r\n", chunkedChat), 400),
                Arguments.of("A6 repeated chunked", post("Transfer-Encoding: chunked, chunked\r\n", chunkedChat), 400),
                Arguments.of(
                        "folded header line",
                        post("X-A: a\r\n folded\r\nContent-Length: " + CHAT.length() + "\r\n", CHAT),
                        400),
                Arguments.of(
                        "two Host fields", post("Host: other\r\nContent-Length: " + CHAT.length() + "\r\n", CHAT), 400),
                Arguments.of(
                        "no Host field",
                        post("Content-Length: " + CHAT.length() + "\r\n", CHAT).replace("Host: gw\r\n", ""),
                        400),
                Arguments.of(
                        "NUL in a header value",
                        post("X-A: a\u0000b\r\nContent-Length: " + CHAT.length() + "\r\n", CHAT),
                        400),
                Arguments.of(
                        "bare LF head",
                        post("Content-Length: " + CHAT.length() + "\r\n", CHAT).replace("\r\n", "\n"),
                        400),
                Arguments.of("not a request line", "NOT A REQUEST\r\nHost: gw\r\n\r\n", 400),
                // A chunk size line that cannot be one, as the last bytes the client sent: refused as soon as read,
                // not when the body's deadline passes.
                Arguments.of("chunk size zz, last sent", post("Transfer-Encoding: chunked\r\n", "zz\r\n"), 400),
                Arguments.of("chunk size -1, last sent", post("Transfer-Encoding: chunked\r\n", "-1\r\n"), 400),
                Arguments.of(
                        "chunk size over 2^63, last sent",
                        post("Transfer-Encoding: chunked\r\n", "ffffffffffffffffff\r\n"),
                        400),
                Arguments.of(
                        "chunk size zz after a chunk, last sent",
                        post("Transfer-Encoding: chunked\r\n", "5\r\nhello\r\nzz\r\n"),
                        400));
    }

    @ParameterizedTest(name = "{0} → {2}")
    @MethodSource("badFraming")
    void badFraming_refusedAndNothingForwarded(String name, String request, int status) {
        RawHttp.Reply reply;
        boolean closed;
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            reply = client.send(request).readResponses(1);
            closed = reply.closed() || client.closedWithin(5_000);
        }
        assertThat(reply.status()).as(reply.text()).isEqualTo(status);
        // Helidon refuses these before routing; its own answer has an empty body.
        assertThat(reply.body()).as(name).startsWith("{\"error\":{\"message\":").contains("\"code\":\"");
        assertThat(closed).as("connection closed after " + name).isTrue();
        assertThat(reply.responses()).isEqualTo(1);
        assertThat(GRID.engine.connections()).as("the engine saw no connection").isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void a6_clTeSmuggling_hiddenRequestNeverReachesTheEngine() {
        // CL.TE: a front end that honours Content-Length would pass the hidden request on as body bytes.
        String clTe = post("Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", "0\r\n\r\n" + HIDDEN);
        // TE.CL: a front end that honours Transfer-Encoding sends a hidden request inside the chunk.
        String teCl = post("Transfer-Encoding: chunked\r\nContent-Length: 4\r\n", "5c\r\n" + HIDDEN + "\r\n0\r\n\r\n");
        // Bare LF line endings with the hidden request after the declared body.
        String bareLf = "POST /v1/chat/completions HTTP/1.1\nHost: gw\nContent-Length: " + CHAT.length() + "\n\n" + CHAT
                + HIDDEN;
        for (String attempt : new String[] {clTe, teCl, bareLf}) {
            exchange(attempt);
        }
        assertThat(GRID.forwarded())
                .extracting(ScriptedUpstream.Request::target)
                .doesNotContain("/pause");
        assertThat(GRID.forwarded().size()).isLessThanOrEqualTo(1);
    }

    @Test
    void a6_pipelinedHiddenRequestAfterAValidBody_isTheGatewaysToRoute() {
        // A valid request followed by a pipelined GET /pause: the gateway routes the second one itself (404 for a
        // consumer), so the engine sees exactly the chat and never /pause.
        RawHttp.Reply reply = exchange(post("Content-Length: " + CHAT.length() + "\r\n", CHAT) + HIDDEN, 2);
        assertThat(reply.responses()).isEqualTo(2);
        assertThat(reply.text()).contains("HTTP/1.1 404");
        assertThat(GRID.forwarded())
                .extracting(ScriptedUpstream.Request::target)
                .containsExactly("/v1/chat/completions");
        assertThat(GRID.forwarded().getFirst().body())
                .isEqualTo(CHAT.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void a10_requestLineOver4096Bytes_414() {
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            RawHttp.Reply reply = client.send("GET /v1/models?x=" + "a".repeat(5000) + " HTTP/1.1\r\nHost: gw\r\n\r\n")
                    .readResponses(1);
            assertThat(reply.status()).isEqualTo(414);
            assertThat(reply.body()).contains("\"code\":\"uri_too_long\"");
            assertThat(GRID.gateway.metrics())
                    .containsPattern("grid_requests_refused_total\\{reason=\"malformed_request\"[^}]*} [1-9]");
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void a10_headerBlockOver16KiB_400() {
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            RawHttp.Reply reply = client.send(post("X-Big: " + "b".repeat(17_000) + "\r\nContent-Length: 2\r\n", "{}"))
                    .readResponses(1);
            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void a16_http2PriorKnowledge_notSpoken_nothingForwarded() {
        // No HTTP/2 module is on the class path, so the rapid-reset surface of A16 does not exist: the preface is
        // refused as a malformed HTTP/1.1 request (400, closed; closing without an answer would do as well).
        try (RawHttp client = new RawHttp(GRID.gateway.server.port())) {
            RawHttp.Reply reply =
                    client.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").readResponses(1);
            assertThat(reply.status() == -1 || reply.status() >= 400)
                    .as(reply.text())
                    .isTrue();
            assertThat(reply.closed() || client.closedWithin(5_000)).isTrue();
        }
        assertThat(GRID.engine.connections()).isEqualTo(GRID.connectionsBefore);
    }

    @Test
    void a14_upgradeH2c_noSwitchAndNeitherHeaderForwarded() {
        RawHttp.Reply reply = exchange(post(
                "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
                        + "Content-Length: " + CHAT.length() + "\r\n",
                CHAT));
        assertThat(reply.status()).isEqualTo(200);
        assertThat(reply.text()).doesNotContain("101");
        String head = GRID.forwarded().getFirst().head().toLowerCase(java.util.Locale.ROOT);
        assertThat(head).doesNotContain("upgrade").doesNotContain("http2-settings");
        // The engine sees only the WebClient's own connection header, never the client's.
        assertThat(head).containsOnlyOnce("\nconnection:").contains("connection: keep-alive\r\n");
    }

    @Test
    void a15_headersNamedByConnection_notForwarded_othersUnchanged() {
        exchange(post(
                "Connection: close, X-Foo\r\nX-Foo: 1\r\nKeep-Alive: timeout=5\r\nTE: trailers\r\n"
                        + "Proxy-Authorization: secret\r\nX-Kept: v a l\r\nContent-Length: " + CHAT.length() + "\r\n",
                CHAT));
        String head = GRID.forwarded().getFirst().head();
        String lower = head.toLowerCase(java.util.Locale.ROOT);
        assertThat(lower)
                .doesNotContain("x-foo")
                .doesNotContain("\r\nkeep-alive:")
                .doesNotContain("\r\nte:")
                .doesNotContain("proxy-authorization")
                .doesNotContain("connection: close");
        assertThat(lower).containsOnlyOnce("\nconnection:").contains("connection: keep-alive\r\n");
        assertThat(head).contains("X-Kept: v a l");
    }
}
