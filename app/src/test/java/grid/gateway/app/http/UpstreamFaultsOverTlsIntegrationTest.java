package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

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
}
