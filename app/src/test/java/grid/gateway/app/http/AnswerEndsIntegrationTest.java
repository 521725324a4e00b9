package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How an engine's side of a connection ends after a whole answer, on real sockets, and what the pool makes of it: an
 * engine that keeps the connection carries the next request on it; one that ends its side right after the answer's
 * last byte (its last chunk, its Content-Length, its head alone) without saying {@code Connection: close} (a FIN, a
 * TLS close_notify, or a TCP end without one) has its connection found closed before the next request is written on
 * it, so that request goes out once, on a new connection, with no retry, no leftover and no error counted. And an
 * answer with two anomalies at once (interim heads, chunk extensions, trailers, bytes after its end): its client gets
 * it whole, nothing of it reaches the next client, whose request goes on a new connection. Client B's answer is
 * scripted; C asks next.
 */
class AnswerEndsIntegrationTest extends ScriptedEngineIntegrationTest {
    private static final String B = "{\"who\":\"B\"}";

    /** How the engine's side ends after B's answer. */
    enum End {
        /** It keeps the connection for the next request. */
        KEEPS,
        /** It ends its side: a FIN, over TLS its close_notify (the TCP connection stays open). */
        ENDS,
        /** Its TCP connection ends without a TLS close_notify (over plain TCP: a FIN, as {@link #ENDS}). */
        TCP_END
    }

    /** Whole answers, each with the body its client gets, in each way the engine's side ends after it. */
    static Stream<Arguments> wholeAnswers() {
        String chunked = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        String events = "data: {\"n\":1}\n\ndata: [DONE]\n\n";
        return Stream.of(
                        Arguments.of(UpstreamAnswersIntegrationTest.ok(B), B),
                        Arguments.of(chunked + "5;a=b\r\n{\"who\r\n6\r\n\":\"B\"}\r\n0;x\r\nX-T: 1\r\n\r\n", B),
                        Arguments.of(
                                "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + UpstreamAnswersIntegrationTest.ok(B),
                                B),
                        Arguments.of(
                                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n", ""),
                        Arguments.of("HTTP/1.1 204 No Content\r\n\r\n", ""),
                        Arguments.of(
                                ScriptedUpstream.SSE_HEAD + UpstreamAnswersIntegrationTest.chunk(events) + "0\r\n\r\n",
                                events))
                .flatMap(answer ->
                        Stream.of(End.values()).map(end -> Arguments.of(answer.get()[0], answer.get()[1], end)));
    }

    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
            return client.read();
        }
    }

    private double counted(String metric) {
        return gateway.metrics()
                .lines()
                .filter(l -> l.startsWith(metric + "{"))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** C gets its own answer; returns whether it went out on {@code b}'s connection. */
    private boolean cOnBsConnection(ScriptedUpstream.Exchange b) throws Exception {
        RawClient.Answer c = ask("C");
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        return engine.take().socket == b.socket;
    }

    @ParameterizedTest
    @MethodSource("wholeAnswers")
    void wholeAnswerThenTheEnginesEnd_connectionClosedBeforeReuse_nextRequestSentOnceOnANewOne(
            String raw, String body, End end) throws Exception {
        CountDownLatch ended = new CountDownLatch(1);
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (!who.equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
                return;
            }
            e.write(raw);
            switch (end) {
                case KEEPS -> {}
                case ENDS -> e.socket.shutdownOutput();
                case TCP_END -> e.finWithoutCloseNotify();
            }
            ended.countDown();
        };

        RawClient.Answer b = ask("B");

        int status =
                Integer.parseInt(raw.substring(raw.lastIndexOf("HTTP/1.1 ") + 9).substring(0, 3));
        assertThat(b.status()).isEqualTo(status);
        assertThat(b.complete()).isTrue();
        assertThat(b.body()).isEqualTo(body);
        ScriptedUpstream.Exchange bs = engine.take();
        assertThat(ended.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(cOnBsConnection(bs)).as("C on B's connection").isEqualTo(end == End.KEEPS);
        assertThat(engine.requests()).hasSize(2);
        assertThat(counted("grid_upstream_retries_total")).as("retries").isZero();
        assertThat(counted("grid_upstream_leftovers_total")).as("leftovers").isZero();
        assertThat(counted("grid_upstream_errors_total")).as("errors").isZero();
    }

    /**
     * A 205 with neither {@code Content-Length} nor {@code Transfer-Encoding} ends with its connection (RFC 9112 §6.3;
     * RFC 9110 §15.3.6 has its server close the connection right after the head): relayed at once without a body, and
     * its connection closed, never pooled. Here the engine writes content until its close (a 205 must have none) only
     * once another request comes on that connection: a pooled connection would give that request those bytes first.
     */
    @Test
    void resetContentWithoutFramingFields_endsWithTheConnection_relayedWithoutABody_connectionNeverReused()
            throws Exception {
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (!who.equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
                return;
            }
            e.write("HTTP/1.1 205 Reset Content\r\nX-Engine: yes\r\n\r\n");
            e.socket.setSoTimeout(10_000);
            if (e.in.read() >= 0) {
                e.write("{\"reset\":true}");
            }
            e.socket.shutdownOutput();
            e.awaitPeerClose(10_000);
        };

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(205);
        assertThat(b.body()).isEmpty();
        assertThat(b.complete()).isTrue();
        assertThat(cOnBsConnection(engine.take())).as("C on B's connection").isFalse();
        assertThat(counted("grid_upstream_retries_total")).as("retries").isZero();
        assertThat(counted("grid_upstream_leftovers_total")).as("leftovers").isZero();
        assertThat(counted("grid_upstream_errors_total")).as("errors").isZero();
    }

    /**
     * A 205 whose chunked body is the last chunk alone (RFC 9110 §15.3.6 names it as one way to say it has no
     * content): relayed without a body, its framing read to its end, its connection carrying the next request. One
     * whose chunks carry content stays the gateway's 502, its connection closed.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {"0\r\n\r\n", "0000;x=y\r\nX-T: 1\r\n\r\n", "2\r\n{}\r\n0\r\n\r\n", "0\r\nX-T: a\u0000b\r\n\r\n"})
    void resetContentWithAChunkedBody_lastChunkAlone_relayedWithoutABody_connectionReused_contentRefused(String body)
            throws Exception {
        boolean empty = !body.startsWith("2") && !body.contains("\u0000");
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (!who.equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
                return;
            }
            e.write("HTTP/1.1 205 Reset Content\r\nTransfer-Encoding: chunked\r\n\r\n" + body);
            if (!empty) {
                e.awaitPeerClose(10_000);
            }
        };

        RawClient.Answer b = ask("B");

        assertThat(b.status()).isEqualTo(empty ? 205 : 502);
        if (empty) {
            assertThat(b.body()).isEmpty();
            assertThat(b.head()).doesNotContainIgnoringCase("transfer-encoding");
        } else {
            assertThat(b.body()).contains("\"code\":\"bad_gateway\"");
        }
        assertThat(cOnBsConnection(engine.take())).as("C on B's connection").isEqualTo(empty);
        assertThat(counted("grid_upstream_retries_total")).as("retries").isZero();
        assertThat(counted("grid_upstream_leftovers_total")).as("leftovers").isZero();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // Interim heads, chunk extensions, trailers and bytes past the last chunk.
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n000b;a=\"b c\"\r\n" + B + "\r\n0;z\r\nX-T: 1\r\n\r\n}",
                // An interim head, then a body longer than its Content-Length, the rest a whole answer too many.
                "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n" + B
                        + "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"X\"}",
                // A 204 announcing a body after an interim head, and the body.
                "HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\nnull",
                // Trailers, and an interim head written after the answer.
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n" + B + "\r\n0\r\nX-A: 1\r\nX-B: 2\r\n\r\n"
                        + "HTTP/1.1 100 Continue\r\n\r\n"
            })
    void twoAnomaliesInOneAnswer_clientGetsItWhole_nothingReachesTheNextClient(String raw) throws Exception {
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            e.write(
                    who.equals("B")
                            ? raw
                            : UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
        };

        RawClient.Answer b = ask("B");

        boolean noContent = raw.contains(" 204 ");
        assertThat(b.status()).isEqualTo(noContent ? 204 : 200);
        assertThat(b.complete()).isTrue();
        assertThat(b.body()).isEqualTo(noContent ? "" : B);
        assertThat(cOnBsConnection(engine.take())).as("C on B's connection").isFalse();
        assertThat(engine.requests()).hasSize(2);
        assertThat(counted("grid_upstream_retries_total")).as("retries").isZero();
        assertThat(counted("grid_upstream_errors_total")).as("errors").isZero();
        // Read with the answer's end (over TLS: decrypted with it, in one record).
        assertThat(gateway.metric("grid_upstream_leftovers_total", "found=\"answer_end\""))
                .isEqualTo(1.0);
    }
}
