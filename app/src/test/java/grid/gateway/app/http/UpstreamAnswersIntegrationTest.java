package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What an engine sends back, on real sockets: a scripted raw-socket engine behind the gateway and raw clients in
 * front of it. Each client puts a name in its prompt ({@code who-B}) and the engine answers with that name, so a test
 * sees whose answer each client got: one answer per request on every pooled connection, interim answers never final,
 * bytes after an answer never reaching the next request, answers without a body relayed without one, and what cannot
 * be relayed answered 502 in the API's shape.
 */
class UpstreamAnswersIntegrationTest extends ScriptedEngineIntegrationTest {
    private static final Pattern WHO = Pattern.compile("who-([A-Za-z0-9]+)");
    private static final String INJECTED =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n"
                    + "{\"who\":\"INJECTED\"}  ";

    private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void captureWarnings() {
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        Logger.getLogger("").removeHandler(capture);
    }

    /** The name the client put in its prompt. */
    static String who(ScriptedUpstream.Exchange e) {
        Matcher m = WHO.matcher(new String(e.body, StandardCharsets.UTF_8));
        return m.find() ? m.group(1) : "?";
    }

    static String body(String who) {
        return "{\"who\":\"" + who + "\"}";
    }

    static String ok(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n"
                + body;
    }

    static String chunk(String text) {
        return UpstreamFaultsIntegrationTest.chunk(text);
    }

    private RawClient.Answer ask(String path, String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post(path, chat(who));
            return client.read();
        }
    }

    static String chat(String who) {
        return "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"who-" + who + "\"}]}";
    }

    /** B's answer is scripted by {@code forB}; everyone else gets a plain 200 naming them. */
    private void answerBWith(ScriptedUpstream.Script forB) {
        engine.script = e -> {
            if (who(e).equals("B")) {
                forB.run(e);
            } else {
                e.write(ok(body(who(e))));
            }
        };
    }

    /** B, then C and D: each must get exactly its own answer, and nobody the injected one. */
    private void eachGetsItsOwn(int bStatus, String bBody) throws IOException {
        RawClient.Answer b = ask("/v1/chat/completions", "B");
        assertThat(b.status()).isEqualTo(bStatus);
        assertThat(b.body()).isEqualTo(bBody);
        assertThat(b.complete()).isTrue();
        for (String next : List.of("C", "D")) {
            RawClient.Answer answer = ask("/v1/chat/completions", next);
            assertThat(answer.status()).as(next).isEqualTo(200);
            assertThat(answer.body()).as(next).isEqualTo(body(next));
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n",
                "HTTP/1.1 100 Continue\r\n\r\n",
                "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </b>\r\n\r\n",
                "HTTP/1.1 199 Whatever\r\nX-A: 1\r\n\r\n",
                // obs-text in an interim head's field: never relayed, so nothing Helidon would write as '?'.
                "HTTP/1.1 103 Early Hints\r\nLink: </caf\u00e9.css>; rel=preload\r\n\r\n"
            })
    void interimAnswersBeforeTheFinal_skipped_eachClientGetsItsOwnAnswer(String interim) throws Exception {
        answerBWith(e -> e.write(interim + ok(body("B"))));

        eachGetsItsOwn(200, body("B"));
    }

    @Test
    void interimAnswerWrittenApartFromTheFinal_skipped() throws Exception {
        answerBWith(e -> {
            e.write("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n");
            e.awaitReadByTheGateway();
            e.write(ok(body("B")));
        });

        eachGetsItsOwn(200, body("B"));
    }

    @Test
    void bodyLongerThanItsContentLength_restNeverReachesTheNextRequest() throws Exception {
        answerBWith(e -> e.write(ok(body("B")) + INJECTED));

        eachGetsItsOwn(200, body("B"));
    }

    @Test
    void longBodyLongerThanItsContentLength_restNeverReachesTheNextRequest() throws Exception {
        // Longer than the reader's buffer, in one write: the rest waits in the socket, or, over TLS, decrypted with
        // the body's last bytes in the TLS socket's own buffer.
        String b = "{\"who\":\"B\",\"pad\":\"" + "p".repeat(12_000) + "\"}";
        answerBWith(e -> e.write(ok(b) + INJECTED));

        eachGetsItsOwn(200, b);
    }

    @Test
    void dataAfterTheLastChunk_neverReachesTheNextRequest() throws Exception {
        answerBWith(
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + chunk(body("B")) + "0\r\n\r\n" + INJECTED));

        eachGetsItsOwn(200, body("B"));
    }

    @Test
    void trailerFields_readAndDropped_connectionReused() throws Exception {
        answerBWith(e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                + "Trailer: X-Checksum\r\n\r\n" + chunk(body("B")) + "0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n"));

        eachGetsItsOwn(200, body("B"));
        // Read exactly, trailers and all, the connection carried the next requests too.
        assertThat(engine.connections()).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void framingNumbersWithManyLeadingZeros_readAsTheirValue(boolean chunked) throws Exception {
        // RFC 9112 allows any number of leading zeros in a Content-Length and a chunk size.
        String b = body("B");
        String zeros = "0".repeat(24);
        answerBWith(e -> e.write(
                chunked
                        ? "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + zeros + Integer.toHexString(b.length()) + "\r\n" + b + "\r\n" + zeros + "\r\n\r\n"
                        : "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + zeros + b.length()
                                + "\r\n\r\n" + b));

        eachGetsItsOwn(200, b);
        assertThat(engine.connections())
                .as("read exactly: one connection carried them all")
                .isEqualTo(1);
        RawClient.Answer again = ask("/v1/chat/completions", "B");
        assertThat(again.body()).isEqualTo(b);
        if (!chunked) {
            // Told to the client as its value: a strict client (or a proxy behind) may refuse the zeros.
            assertThat(again.header("content-length")).isEqualTo(Integer.toString(b.length()));
        }
    }

    @Test
    void chunkExtensions_ignored() throws Exception {
        String b = body("B");
        answerBWith(
                e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + Integer.toHexString(3) + ";name=value\r\n" + b.substring(0, 3) + "\r\n"
                        + Integer.toHexString(b.length() - 3) + " ; a=\"q;x\";b\r\n" + b.substring(3)
                        + "\r\n0;last\r\n\r\n"));

        eachGetsItsOwn(200, b);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
                "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n",
                "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nHELLO",
                "HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n",
                "HTTP/1.1 205 Reset Content\r\nContent-Length: 0\r\n\r\n"
            })
    void answersWithoutABody_relayedWithoutOne_clientConnectionStaysInStep(String raw) throws Exception {
        int status = Integer.parseInt(raw.substring(9, 12));
        answerBWith(e -> e.write(raw));
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", chat("B"));
            String head = client.readHead();
            assertThat(head).startsWith("HTTP/1.1 " + status);
            // A client told of a body that never comes would read the next answer as its body.
            assertThat(header(head, "transfer-encoding")).isNull();
            assertThat(header(head, "content-length")).isIn(null, "0");

            // The same client connection carries the next request, and it gets its own answer.
            client.post("/v1/chat/completions", chat("C"));
            RawClient.Answer c = client.read();
            assertThat(c.status()).isEqualTo(200);
            assertThat(c.body()).isEqualTo(body("C"));
        }
        assertThat(ask("/v1/chat/completions", "D").body()).isEqualTo(body("D"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"Content-Length: 4", "Transfer-Encoding: chunked"})
    void noContentAnnouncingABody_bodyWrittenAfterTheNextRequestCame_neverReadAsItsAnswer(String announced)
            throws Exception {
        // A 204 announcing a body it cannot have, the body written apart (a framework's 204 with "null"), and late:
        // only once the next request has reached the engine. Written on a connection the next request was sent on,
        // it would be read as the start of that request's answer.
        CountDownLatch nextReceived = new CountDownLatch(1);
        String late = announced.startsWith("Content-Length") ? "null" : chunk("null") + "0\r\n\r\n";
        engine.script = e -> {
            if (who(e).equals("B")) {
                e.write("HTTP/1.1 204 No Content\r\n" + announced + "\r\n\r\n");
                // Reached at once when the next request comes on a new connection; on this one it cannot come
                // while this script runs, and the wait ends unfulfilled.
                nextReceived.await(2, TimeUnit.SECONDS);
                e.write(late);
            } else {
                nextReceived.countDown();
                e.write(ok(body(who(e))));
            }
        };

        assertThat(ask("/v1/chat/completions", "B").status()).isEqualTo(204);
        RawClient.Answer c = ask("/v1/chat/completions", "C");

        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(body("C"));
        ScriptedUpstream.Exchange b = engine.take();
        assertThat(engine.take().socket).as("C on a new connection").isNotSameAs(b.socket);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
                "HTTP/1.1 099 Odd\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 205 Reset Content\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 205 Reset Content\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 200 OK\nContent-Length: 2\n\n{}",
                "HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\n{}",
                "HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\n: empty\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\nX-Note: caf\u00e9\r\nContent-Length: 2\r\n\r\n{}",
                "HTTP/1.1 200 OK\r\nSet-Cookie: n=\u00ff\u0080\r\nContent-Length: 2\r\n\r\n{}"
            })
    void answerTheGatewayCannotRelay_502InTheApiShape_noStackTrace_connectionNotReused(String raw) throws Exception {
        answerBWith(e -> {
            e.write(raw);
            e.awaitPeerClose(10_000);
        });

        RawClient.Answer b = ask("/v1/chat/completions", "B");

        assertThat(b.status()).isEqualTo(502);
        assertThat(b.body()).contains("\"code\":\"bad_gateway\"").startsWith("{\"error\":");
        ScriptedUpstream.Exchange broken = engine.take();
        assertThat(ask("/v1/chat/completions", "C").body()).isEqualTo(body("C"));
        assertThat(engine.take().socket).as("a new connection").isNotSameAs(broken.socket);
        assertThat(warnings).noneMatch(r -> r.getThrown() != null);
        assertThat(gateway.metrics()).containsPattern("grid_upstream_errors_total\\{[^}]*kind=\"reset\"[^}]*} 1\\.0");
    }

    @Test
    void reasonPhraseWithObsText_statusOwnPhraseRelayed_connectionReused() throws Exception {
        answerBWith(e -> e.write("HTTP/1.1 200 Tr\u00e8s bien\r\nContent-Type: application/json\r\nContent-Length: "
                + body("B").length() + "\r\n\r\n" + body("B")));

        RawClient.Answer b = ask("/v1/chat/completions", "B");

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(body("B"));
        assertThat(b.head()).startsWith("HTTP/1.1 200 OK\r\n").doesNotContain("?");
        ScriptedUpstream.Exchange first = engine.take();
        assertThat(ask("/v1/chat/completions", "C").body()).isEqualTo(body("C"));
        assertThat(engine.take().socket).as("the same connection").isSameAs(first.socket);
    }

    @Test
    void okWithConnectionUpgrade_relayedWithoutUpgrade_connectionNotReused() throws Exception {
        answerBWith(e -> e.write("HTTP/1.1 200 OK\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + body("B").length() + "\r\n\r\n" + body("B")));

        RawClient.Answer b = ask("/v1/chat/completions", "B");

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(body("B"));
        assertThat(b.header("upgrade")).isNull();
        ScriptedUpstream.Exchange first = engine.take();
        assertThat(ask("/v1/chat/completions", "C").body()).isEqualTo(body("C"));
        assertThat(engine.take().socket).as("a new connection").isNotSameAs(first.socket);
        assertThat(warnings).noneMatch(r -> r.getThrown() != null);
    }

    @Test
    void enginesRequestId_neverReplacesTheGatewaysOwn() throws Exception {
        answerBWith(e -> e.write("HTTP/1.1 200 OK\r\nX-Request-Id: engine-chosen\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + body("B").length() + "\r\n\r\n" + body("B")));

        RawClient.Answer b = ask("/v1/chat/completions", "B");

        String sent = header(engine.take().head, "x-request-id");
        assertThat(sent).isNotBlank().isNotEqualTo("engine-chosen");
        assertThat(b.header("x-request-id")).isEqualTo(sent);
        assertThat(b.head().toLowerCase(Locale.ROOT)).doesNotContain("engine-chosen");
    }

    static String header(String head, String name) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return line.substring(colon + 1).trim();
            }
        }
        return null;
    }

    @Test
    void pathWhoseAnswersCarryStoredIds_engineAskedForIdentity_otherPathsForwardTheClientsChoice() throws Exception {
        engine.script = e -> e.write(ok("{\"id\":\"resp_1\"}"));
        try (RawClient client = new RawClient(gateway.server.port())) {
            byte[] body = "{\"model\":\"demo-model\",\"input\":\"hi\"}".getBytes(StandardCharsets.UTF_8);
            client.send("POST /v1/responses HTTP/1.1\r\nHost: gw\r\nAccept-Encoding: gzip, br\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n"
                    + new String(body, StandardCharsets.ISO_8859_1));
            assertThat(client.read().body()).contains("resp_east.");
        }
        String responses = engine.take().head;
        assertThat(header(responses, "accept-encoding")).isEqualTo("identity");
        assertThat(responses.toLowerCase(Locale.ROOT)).doesNotContain("gzip");

        try (RawClient client = new RawClient(gateway.server.port())) {
            String chat = chat("E");
            client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAccept-Encoding: gzip, br\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + chat.length() + "\r\n\r\n" + chat);
            client.read();
        }
        assertThat(header(engine.take().head, "accept-encoding")).isEqualTo("gzip, br");
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "br", "identity, gzip"})
    void storedIdAnswerCompressedAnyway_502_neverRelayedUntagged(String coding) throws Exception {
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: " + coding
                    + "\r\nContent-Length: 16\r\n\r\n{\"id\":\"resp_1\"}");
            e.awaitPeerClose(10_000);
        };
        RawClient.Answer answer;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}");
            answer = client.read();
        }

        assertThat(answer.status()).isEqualTo(502);
        assertThat(answer.body()).contains("bad_gateway").doesNotContain("resp_1");
        ScriptedUpstream.Exchange exchange = engine.take();
        GatewayHarness.await("the engine's connection closed", () -> exchange.peerClosedAt != 0);
    }

    @Test
    void compressedAnswerOfAPathWithoutStoredIds_relayedAsItIs() throws Exception {
        String gzipped = "\u001f\u008b\u0008\u0000binary";
        answerBWith(e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                + "Content-Length: " + gzipped.length() + "\r\n\r\n" + gzipped));

        RawClient.Answer b = ask("/v1/chat/completions", "B");

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.header("content-encoding")).isEqualTo("gzip");
    }
}
