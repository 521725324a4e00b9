package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every {@link UpstreamFaultsIntegrationTest} again with the engine behind TLS (a private CA in
 * {@code gateway.upstream.tls.ca_file}): resets, cuts mid-chunk, silences and timeouts are told apart over TLS as over
 * plain TCP. Certificates are made for the run.
 */
class UpstreamFaultsOverTlsIntegrationTest extends UpstreamFaultsIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }

    /**
     * An answer whose end is the connection's (no Content-Length, not chunked) cut by a TCP FIN without the engine's
     * close_notify: over TLS that is no end the engine sent (RFC 8446 §6.1), so the client's stream must not get its
     * terminating chunk, on an untagged path and on a tagged one.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions", "/v1/responses"})
    void answerEndedByTheConnection_finWithoutCloseNotify_clientStreamEndsAbnormally(String path) throws Exception {
        start("");
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"n\":0}\n\n");
            e.finWithoutCloseNotify();
        };
        RawClient.Answer answer = postRaw(path, STREAM);
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo("data: {\"n\":0}\n\n");
        assertThat(answer.complete()).as("no terminating chunk").isFalse();
    }

    /** The same answer ended by the engine's close_notify is whole: it is relayed with its terminating chunk. */
    @ParameterizedTest
    @ValueSource(strings = {"/v1/chat/completions", "/v1/responses"})
    void answerEndedByTheConnection_closeNotify_clientStreamComplete(String path) throws Exception {
        start("");
        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"n\":0}\n\n");
            e.socket.close();
        };
        RawClient.Answer answer = postRaw(path, STREAM);
        assertThat(answer.body()).isEqualTo("data: {\"n\":0}\n\n");
        assertThat(answer.complete()).isTrue();
    }

    /**
     * A TLS 1.3 KeyUpdate from the engine (the JDK's {@code startHandshake} on an open connection sends one, asking for
     * the gateway's) inside an answer or right after it carries no answer bytes: the answer is relayed whole, and the
     * next client gets its own answer, whether the connection carried it or was closed for what was read there.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void keyUpdateInsideOrAfterAnAnswer_answerWhole_nextClientGetsItsOwn(boolean inside) throws Exception {
        start("");
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            String answer = UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who));
            int split = who.equals("B") && inside ? answer.length() - 4 : answer.length();
            e.write(answer.substring(0, split));
            if (who.equals("B")) {
                ((SSLSocket) e.socket).startHandshake();
            }
            e.write(answer.substring(split));
        };

        RawClient.Answer b = postRaw("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat("B"));
        RawClient.Answer c = postRaw("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat("C"));

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));
        assertThat(b.complete()).isTrue();
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
    }

    /**
     * Bytes under the TLS layer after the engine's close_notify (which ends an answer framed by the connection) are
     * never read: the answer ends whole at the close_notify, the connection is closed, and the next client gets its
     * own answer from a new one.
     */
    @Test
    void bytesAfterTheEnginesCloseNotify_neverRead_answerWhole_nextClientGetsItsOwn() throws Exception {
        start("");
        engine.script = e -> {
            String who = UpstreamAnswersIntegrationTest.who(e);
            if (!who.equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who)));
                return;
            }
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
                    + UpstreamAnswersIntegrationTest.body("B"));
            e.socket.shutdownOutput(); // close_notify; the TCP connection stays open
            e.tcp.getOutputStream()
                    .write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("X"))
                            .getBytes(StandardCharsets.ISO_8859_1));
            e.awaitPeerClose(10_000);
        };

        RawClient.Answer b = postRaw("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat("B"));
        RawClient.Answer c = postRaw("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat("C"));

        assertThat(b.status()).isEqualTo(200);
        assertThat(b.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));
        assertThat(b.complete()).isTrue();
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        ScriptedUpstream.Exchange first = engine.take();
        assertThat(engine.take().socket).as("C on a new connection").isNotSameAs(first.socket);
    }
}
