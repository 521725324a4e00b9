package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
        awaitUnreadAtTheGateway(b);

        cOnANewConnection(b);
        // Over TLS the bytes are still encrypted in the socket: they cannot be told from the engine's close_notify.
        assertThat(leftovers("idle")).isEqualTo(engine.url().startsWith("https:") ? 0.0 : 1.0);
        assertThat(leftovers("answer_end")).isZero();
    }

    /**
     * Waits until the kernel holds bytes the gateway has not read on the connection {@code e} came on, as
     * {@code /proc/net/tcp} shows them (the receive queue of the gateway's end): the late bytes are there to be found
     * before the next request takes the connection.
     */
    static void awaitUnreadAtTheGateway(ScriptedUpstream.Exchange e) throws IOException {
        String gatewayEnd = String.format(Locale.ROOT, ":%04X", e.tcp.getPort());
        String engineEnd = String.format(Locale.ROOT, ":%04X", e.tcp.getLocalPort());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.strip().split("\\s+");
                    if (f.length > 4
                            && f[1].endsWith(gatewayEnd)
                            && f[2].endsWith(engineEnd)
                            && Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16) > 0) {
                        return;
                    }
                }
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the late bytes never reached the gateway's socket");
    }
}
