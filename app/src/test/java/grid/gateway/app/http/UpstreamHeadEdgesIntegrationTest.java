package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Edges of an engine's heads and framing, on real sockets, beyond those {@link UpstreamAnswersIntegrationTest} and
 * {@link ConnectionReuseIntegrationTest} walk: what RFC 9112 lets the gateway read is read by its value and the
 * connection carries the next request; what it does not is the gateway's 502 in the API's shape, the connection closed,
 * and the next client gets its own answer on a new one. Client B's answer is scripted; C asks next.
 */
class UpstreamHeadEdgesIntegrationTest extends ScriptedEngineIntegrationTest {
    private static final String B = "{\"who\":\"B\"}";
    private static final String FINAL =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n" + B;

    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
            return client.read();
        }
    }

    /**
     * B is answered {@code raw}, then, when {@code ends}, the engine ends its side; when {@code awaitsClose} it waits
     * for the gateway to close the connection. Everyone else gets a 200 naming them.
     */
    private void answerBWith(String raw, boolean ends, boolean awaitsClose) {
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (!who.equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
                return;
            }
            e.write(raw);
            if (ends) {
                e.finWithoutCloseNotify();
            }
            if (awaitsClose) {
                e.awaitPeerClose(10_000);
            }
        };
    }

    /** C gets its own answer; returns whether it went out on B's connection. */
    private boolean cOnBsConnection() throws Exception {
        ScriptedUpstream.Exchange b = engine.take();
        RawClient.Answer c = ask("C");
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        assertThat(engine.requests()).allSatisfy(r -> assertThat(r.head()).startsWith("POST "));
        return engine.take().socket == b.socket;
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"
                        + FINAL,
                // A 1xx has no content whatever its fields say (RFC 9110 §15.2): the final head follows at once.
                "HTTP/1.1 103 Early Hints\r\nTransfer-Encoding: chunked\r\n\r\n" + FINAL,
                "HTTP/1.1 100 Continue\r\nContent-Length: 0\r\n\r\n" + FINAL,
                "HTTP/1.1 200 \t\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 a\tb c: d\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 299 Whatever\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nX-Empty:\r\nX-!#$%&'*+-.^_`|~: v\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\nB\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n000b;a=b\r\n" + B
                        + "\r\n0000;x\r\nX-T: 1\r\nX-U:\r\n\r\n",
                // White space after a chunk size (RFC 9112 §7.1.1's BWS before an extension, and before the line end,
                // which no reading of the size can disagree on); more leading zeros than a size has digits.
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb \t;x=1\r\n" + B + "\r\n0 ;y\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb \r\n" + B + "\r\n0\t\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000000000000B\r\n" + B
                        + "\r\n00000000000000000000\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 00000000000000000000000011\r\n\r\n" + B
            })
    void headsRfc9112LetsTheGatewayRead_readByTheirValue_connectionCarriesTheNextRequest(String raw) throws Exception {
        answerBWith(raw, false, false);

        RawClient.Answer b = ask("B");

        assertThat(b.status())
                .isEqualTo(Integer.parseInt(
                        raw.substring(raw.lastIndexOf("HTTP/1.1 ") + 9).substring(0, 3)));
        assertThat(b.body()).isEqualTo(B);
        assertThat(cOnBsConnection()).as("C on B's connection").isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 11,11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 11, 12\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 1e1\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 0x0b\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: \"11\"\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nb\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked,\r\n\r\nb\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding:\r\n\r\nb\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked;q=1\r\n\r\nb\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nTransfer-Encoding: identity\r\n\r\n" + B,
                "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x0b\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-b\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n b\r\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000b\r\n" + B,
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n",
                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n folded\r\n\r\n" + FINAL,
                "HTTP/1.1 200 OK\r\nX-A: a\u0000b\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 O\u0000K\r\nContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\n Content-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\n\tContent-Length: 11\r\n\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\r\n" + B,
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\n" + B,
                // On a new connection a CRLF or a space before the status line is no answer: no engine sends one.
                "\r\n" + FINAL,
                " " + FINAL,
                // An interim head has no content, whatever its fields say: what follows it is the next head.
                "HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\nhello" + FINAL,
                "HTTP/1.1 100 Continue\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + FINAL,
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n" + FINAL,
                // A chunk size line ending with a bare LF, or a size of 16 hex digits after the leading zeros.
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\n" + B + "\r\n0\r\n\r\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n000100000000000000b\r\n" + B,
                // Ended inside an interim head, or right after it.
                "HTTP/1.1 103 Early Hints\r\n",
                "HTTP/1.1 103 Early Hints\r\n\r\n"
            })
    void headsRfc9112DoesNotLetTheGatewayRead_502InTheApiShape_connectionClosed(String raw) throws Exception {
        // A head cut short is only one once the engine ends its side.
        answerBWith(raw, !raw.contains("HTTP/1.1 200") && !raw.contains("HTTP/1.1 101"), true);

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(502);
        assertThat(b.body()).startsWith("{\"error\":").contains("\"code\":\"bad_gateway\"");
        assertThat(cOnBsConnection()).as("C on B's connection").isFalse();
    }

    /**
     * A chunk size line, its extension included, holds at most 4096 bytes, however it comes: here whole in one write,
     * so in one read, where a line is easiest to take past its limit. The longer one is the gateway's 502 (nothing of
     * the body had gone out) and the connection is closed.
     */
    @ParameterizedTest
    @CsvSource({"4096, true", "4097, false"})
    void chunkSizeLineUpTo4096Bytes_read_longerOne_502_connectionClosed(int length, boolean read) throws Exception {
        String line = "b;x=" + "y".repeat(length - 4);
        answerBWith(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + line + "\r\n" + B + "\r\n0\r\n\r\n",
                false,
                !read);

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(read ? 200 : 502);
        if (read) {
            assertThat(b.body()).isEqualTo(B);
        } else {
            assertThat(b.body()).startsWith("{\"error\":").contains("\"code\":\"bad_gateway\"");
        }
        assertThat(cOnBsConnection()).as("C on B's connection").isEqualTo(read);
    }

    /**
     * A trailer field line holds at most 4096 bytes too, however it comes: the longer one, after the body went out,
     * cuts the client's answer short of its end (never a body that looks whole), and the connection is closed.
     */
    @ParameterizedTest
    @CsvSource({"4096, true", "4097, false"})
    void trailerLineUpTo4096Bytes_read_longerOne_answerCut_connectionClosed(int length, boolean read) throws Exception {
        String trailer = "X-T: " + "z".repeat(length - 5);
        answerBWith(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n" + B + "\r\n0\r\n" + trailer + "\r\n\r\n",
                false,
                !read);

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(B);
        assertThat(b.complete()).as("B's answer ended by its framing").isEqualTo(read);
        assertThat(cOnBsConnection()).as("C on B's connection").isEqualTo(read);
    }
}
