package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.tag.ClusterDigest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whether an engine's connection carries the next request, on real sockets: only when the engine is known to have
 * taken the whole request, the answer was read exactly and every head of it lets the connection live on. Client B's
 * answer is scripted; C asks next, and the test sees whether C went out on B's connection, whether C got its own
 * answer, and whether the engine ever read anything but a request where a request begins.
 */
class ConnectionReuseIntegrationTest extends ScriptedEngineIntegrationTest {
    private static final Pattern WHO = Pattern.compile("who-([A-Za-z0-9]+)");
    private static final String B_BODY = UpstreamAnswersIntegrationTest.body("B");
    /** A stored response's id as a client holds it: tagged with the one engine's site and cluster. */
    private static final String TAGGED = "resp_east." + ClusterDigest.of("east-a") + "..abc";

    @BeforeEach
    void scriptsReadTheirBodies() {
        // Each script reads the request body itself, or leaves it unread: an engine that answers after the head.
        engine.readsBody = false;
    }

    /** Reads the body the head of {@code e} announces; returns the name the client put in it. */
    private static String readBody(ScriptedUpstream.Exchange e) throws IOException {
        String length = UpstreamAnswersIntegrationTest.header(e.head, "content-length");
        byte[] body = e.in.readNBytes(length == null ? 0 : Integer.parseInt(length));
        Matcher m = WHO.matcher(new String(body, StandardCharsets.UTF_8));
        return m.find() ? m.group(1) : "?";
    }

    private static String ok(String who) {
        return UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who));
    }

    /**
     * B (a request with a body, marked by a header) is answered with {@code forB}, its body read first only when
     * {@code readsB}; every other request with a 200 naming its client, after its body is read; what does not begin
     * with a method (bytes left of an earlier request) with a 200 naming nobody. Then C asks. Asserts that C got its
     * own answer and that the engine read nothing but requests; returns whether C went out on B's connection.
     */
    private boolean cOnBsConnection(String forB, boolean readsB) throws Exception {
        engine.script = e -> {
            if (!e.head.startsWith("POST ")) {
                e.write(ok("NOBODY"));
            } else if (!e.head.toLowerCase(Locale.ROOT).contains("\r\nx-b: 1\r\n")) {
                e.write(ok(readBody(e)));
            } else {
                if (readsB) {
                    readBody(e);
                }
                e.write(forB);
            }
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            String chat = UpstreamAnswersIntegrationTest.chat("B");
            client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nX-B: 1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + chat.length() + "\r\n\r\n" + chat);
            client.read();
        }
        ScriptedUpstream.Exchange b = engine.take();
        cGetsItsOwnAnswer();
        assertThat(engine.requests()).allSatisfy(r -> assertThat(r.head()).startsWith("POST "));
        return engine.take().socket == b.socket;
    }

    @ParameterizedTest
    @ValueSource(ints = {400, 413, 429, 503})
    void errorAnswerBeforeTheBodyIsRead_keptAlive_connectionNotReused_bodyNeverReadAsARequest(int status)
            throws Exception {
        // The kernel takes the whole body with the head; the engine refuses the request after its head, reads none
        // of the body and keeps the connection (without saying whether it will drop the unread bytes).
        String error = "{\"error\":{\"message\":\"refused\",\"code\":" + status + "}}";
        String answer = "HTTP/1.1 " + status + " Refused\r\nContent-Type: application/json\r\nContent-Length: "
                + error.length() + "\r\n\r\n" + error;

        assertThat(cOnBsConnection(answer, false)).as("C on B's connection").isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {301, 400, 414, 431, 503})
    void answerBeforeTheWholeHeadOfABodylessRequestIsRead_keptAlive_connectionNotReused(int status) throws Exception {
        // A request without a body (a stored response read back), refused once its request line is read (a target
        // too long, a header limit, a proxy in front of the engine): the engine keeps the connection and reads the
        // rest of the head as the next request, which it answers once it gets to it, here when the next request has
        // come in behind it. The gateway cannot see how much of the head the engine read.
        engine.readsWholeHead = false;
        engine.script = e -> {
            if (e.head.startsWith("GET ")) {
                engine.readsWholeHead = true;
                e.write("HTTP/1.1 " + status
                        + " Refused\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
            } else if (e.head.startsWith("POST ")) {
                e.write(ok(readBody(e)));
            } else if (e.in.read() >= 0) {
                e.write(ok("NOBODY"));
            }
        };
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.send("GET /v1/responses/" + TAGGED + " HTTP/1.1\r\nHost: gw\r\nX-Long: " + "x".repeat(2_000)
                    + "\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(status);
        }
        ScriptedUpstream.Exchange b = engine.take();
        engine.take(); // the rest of B's head, read as a request

        cGetsItsOwnAnswer();
        assertThat(engine.take().socket).as("C on B's connection").isNotSameAs(b.socket);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 100 Continue\r\nConnection: close\r\n\r\n",
                "HTTP/1.0 100 Continue\r\n\r\n",
                "HTTP/1.1 103 Early Hints\r\nConnection: keep-alive, close\r\n\r\n",
                "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nConnection: Close\r\n\r\n"
            })
    void interimHeadThatEndsTheConnection_finalHeadKeepsIt_connectionNotReused(String interim) throws Exception {
        assertThat(cOnBsConnection(interim + ok("B"), true))
                .as("C on B's connection")
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: 11\r\n\r\n",
                "HTTP/1.1 200 OK\r\nConnection: close, keep-alive\r\nContent-Length: 11\r\n\r\n",
                "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nConnection: close\r\nContent-Length: 11\r\n\r\n"
            })
    void finalHeadThatDoesNotKeepTheConnection_notReused(String head) throws Exception {
        assertThat(cOnBsConnection(head + B_BODY, true))
                .as("C on B's connection")
                .isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {16, 17})
    void interimAnswers_asManyAsAreRead_skipped_oneMore_refused(int interims) throws Exception {
        String raw = "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n".repeat(interims)
                + "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n" + B_BODY;

        assertThat(cOnBsConnection(raw, true)).as("C on B's connection").isEqualTo(interims <= 16);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 200\r\nContent-Length: 11\r\n\r\n" + "{\"who\":\"B\"}",
                "HTTP/1.1 200 \r\nKeep-Alive: timeout=5, max=100\r\nConnection: keep-alive\r\nContent-Length: 11\r\n\r\n"
                        + "{\"who\":\"B\"}",
                // Framing fields among the trailers frame nothing: they are dropped with the rest.
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n{\"who\":\"B\"}\r\n0\r\nContent-Length: 99\r\n"
                        + "Transfer-Encoding: gzip\r\n\r\n",
                "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
                // White space around a field value is not part of it (RFC 9110 §5.5).
                "HTTP/1.1 200 OK\r\nContent-Length: \t 11 \t\r\n\r\n" + "{\"who\":\"B\"}"
            })
    void answerReadExactly_connectionReused(String raw) throws Exception {
        assertThat(cOnBsConnection(raw, true)).as("C on B's connection").isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n{\"who\":\"B\"}\r\n0\r\n\r\n"
                        + "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"X\"}",
                "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"B\"}0\r\n\r\n",
                "HTTP/1.2 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"B\"}",
                "http/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"B\"}",
                "HTTP/1.1  200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"B\"}",
                "HTTP/1.1 100 Continue\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"
                        + "{\"who\":\"B\"}",
                "HTTP/1.1 200 OK\r\nContent-Length: +11\r\n\r\n{\"who\":\"B\"}",
                "HTTP/1.1 200 OK\r\nContent-Length: 11 11\r\n\r\n{\"who\":\"B\"}",
                "HTTP/1.1 200 OK\r\nContent-Length: 1000000000000000011\r\n\r\n{\"who\":\"B\"}",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\n\r\n{\"who\":\"B\"}",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\nb\r\n{\"who\":\"B\"}\r\n0\r\n\r\n",
                // A CRLF inside a quoted chunk extension ends the size line (a quoted string holds none): the chunk's
                // data is not followed by its CRLF where its size says.
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb;a=\"x\r\ny\"\r\n{\"who\":\"B\"}\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n{\"who\":\"B\"}\n0\r\n\r\n"
            })
    void bytesPastTheAnswerOrAHeadNotRelayable_connectionNotReused(String raw) throws Exception {
        assertThat(cOnBsConnection(raw, true)).as("C on B's connection").isFalse();
    }

    /** Client C sends its chat through the gateway and gets its own answer, whatever connection carries it. */
    private void cGetsItsOwnAnswer() throws IOException {
        RawClient.Answer c;
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat("C"));
            c = client.read();
        }
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
    }
}
