package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bytes an engine writes beyond the answers the gateway read on a connection, found before any request could read
 * them, on real sockets: past an answer read to its end (when it ends), or on the connection idle in the pool (before
 * it is reused). The connection is closed, no client sees them, no request is sent again for them, and
 * {@code grid_upstream_leftovers_total{found}} counts them, so that an engine that writes more than its framing says
 * is seen before a leftover lands where it cannot be told from an answer.
 */
class LeftoversFoundIntegrationTest extends ScriptedEngineIntegrationTest {
    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
            return client.read();
        }
    }

    private static String ok(String who) {
        return UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body(who));
    }

    private double leftovers(String found) {
        return gateway.metric("grid_upstream_leftovers_total", "found=\"" + found + "\"");
    }

    /** C gets its own answer on a connection other than B's; nothing was sent twice or counted failed. */
    private void cOnANewConnection(ScriptedUpstream.Exchange b) throws Exception {
        RawClient.Answer c = ask("C");
        assertThat(c.status()).isEqualTo(200);
        assertThat(c.body()).isEqualTo(UpstreamAnswersIntegrationTest.body("C"));
        assertThat(engine.take().socket).as("C on a new connection").isNotSameAs(b.socket);
        assertThat(engine.requests()).hasSize(2);
        String metrics = gateway.metrics();
        assertThat(metrics).doesNotContainPattern("grid_upstream_(errors|retries)_total\\{[^}]*} [1-9]");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"B\"}}",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n{\"who\":\"B\"}\r\n0\r\n\r\n\r\n",
                "HTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\nnull"
            })
    void bytesPastAnAnswerReadToItsEnd_closedAsItEnds_countedAtTheAnswersEnd(String raw) throws Exception {
        // In one write: the bytes past the answer are read with its end.
        engine.script = e -> e.write(UpstreamAnswersIntegrationTest.who(e).equals("B") ? raw : ok("C"));

        assertThat(ask("B").status()).isEqualTo(raw.startsWith("HTTP/1.1 204") ? 204 : 200);
        ScriptedUpstream.Exchange b = engine.take();

        cOnANewConnection(b);
        assertThat(leftovers("answer_end")).isEqualTo(1.0);
        assertThat(leftovers("idle")).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"}", "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"who\":\"X\"}"})
    void bytesArrivingWhileTheConnectionIsPooled_closedBeforeReuse_countedAsIdleOverPlainTcp(String late)
            throws Exception {
        CountDownLatch answered = new CountDownLatch(1);
        CountDownLatch written = new CountDownLatch(1);
        engine.script = e -> {
            if (UpstreamAnswersIntegrationTest.who(e).equals("B")) {
                e.write(ok("B"));
                // Written once B's client has its answer, so its connection is in the pool by then.
                answered.await(10, TimeUnit.SECONDS);
                e.write(late);
                written.countDown();
            } else {
                e.write(ok("C"));
            }
        };
        assertThat(ask("B").body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));
        ScriptedUpstream.Exchange b = engine.take();
        answered.countDown();
        assertThat(written.await(10, TimeUnit.SECONDS)).isTrue();
        b.awaitUnreadAtTheGateway();

        cOnANewConnection(b);
        // Over TLS the bytes are still encrypted in the socket: they cannot be told from the engine's close_notify.
        assertThat(leftovers("idle")).isEqualTo(engine.url().startsWith("https:") ? 0.0 : 1.0);
        assertThat(leftovers("answer_end")).isZero();
    }

    @Test
    void engineResetsAPooledConnection_closedBeforeReuse_nextRequestOnANewConnection_neverA500() throws Exception {
        // The reset comes once B's client has its answer, so B's connection is in the pool by then; the quiet check
        // before reuse meets it as a failed read. Over TLS that connection's close then writes a close_notify, which
        // must find its socket as a close expects it (blocking), not as the quiet check left it.
        CountDownLatch answered = new CountDownLatch(1);
        CountDownLatch reset = new CountDownLatch(1);
        engine.script = e -> {
            if (UpstreamAnswersIntegrationTest.who(e).equals("B")) {
                e.write(ok("B"));
                answered.await(10, TimeUnit.SECONDS);
                e.resetAndAwaitTheGatewaysEnd();
                reset.countDown();
            } else {
                e.write(ok("C"));
            }
        };
        assertThat(ask("B").body()).isEqualTo(UpstreamAnswersIntegrationTest.body("B"));
        ScriptedUpstream.Exchange b = engine.take();
        answered.countDown();
        assertThat(reset.await(10, TimeUnit.SECONDS)).isTrue();

        cOnANewConnection(b);
        assertThat(leftovers("idle")).isZero();
        assertThat(leftovers("answer_end")).isZero();
    }
}
