package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.tls.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that stops reading its answer, on real sockets: after {@code server.send_timeout_ms} without taking a byte,
 * its connection is closed, and with it the answer's upstream connection (the engine stops), the request, and the
 * body bytes it held; over plain HTTP and over TLS. Its access line ends {@code send_timeout}, not {@code client_gone}:
 * the client did not leave, the gateway cut it. The engine streams without end, so only the gateway's cut can stop
 * it. What is asserted is that the cut happens and what it frees, not when: the timeout itself is the alarm's, tested
 * on a manual clock in {@code IdleAlarmTest}.
 */
class SlowClientIntegrationTest {
    private static final String SEND_TIMEOUT = """
              send_timeout_ms: 300
            """;
    private static final byte[] EVENT =
            ("data: {\"text\":\"" + "x".repeat(16 * 1024) + "\"}\n\n").getBytes(StandardCharsets.ISO_8859_1);

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    private final CountDownLatch engineCut = new CountDownLatch(1);
    private final AtomicLong streamed = new AtomicLong();

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private void start(String server, Optional<SSLContext> clientTls) {
        engine = new ScriptedUpstream();
        engine.script = e -> {
            e.write(ScriptedUpstream.SSE_HEAD);
            try {
                while (true) {
                    e.write(UpstreamFaultsIntegrationTest.chunk(new String(EVENT, StandardCharsets.ISO_8859_1)));
                    streamed.addAndGet(EVENT.length);
                }
            } catch (IOException closed) {
                engineCut.countDown();
            }
        };
        gateway = new GatewayHarness(
                dir, GatewayHarness.config(server, "", GatewayHarness.oneEngine(engine.url())), clientTls, engine);
    }

    @Test
    void clientStopsReading_cutAfterTheSendTimeout_engineStopped_requestAndBodyBudgetFreed() throws Exception {
        start(SEND_TIMEOUT, Optional.empty());
        Socket client = new Socket();
        stallAfterTheHead(client);
    }

    @Test
    void clientStopsReadingOverTls_cutAfterTheSendTimeout() throws Exception {
        TestPki pki = TestPki.create(dir, "slow-client");
        TestPki.Pair listener = pki.issue("gateway");
        start(SEND_TIMEOUT + listener.serverTls(), Optional.of(pki.trustOnly()));
        Socket client = pki.trustOnly().getSocketFactory().createSocket();
        stallAfterTheHead(client);
    }

    @Test
    void clientStillReadingAtTheShutdownGraceDeadline_cut_accessLineSaysShutdownCut() throws Exception {
        start("  send_timeout_ms: 60000\n", Optional.empty());
        try (Socket client = new Socket()) {
            InputStream in =
                    RawHttp.postChat(client, gateway.server.port(), 4096, 20_000, UpstreamFaultsIntegrationTest.STREAM);
            assertThat(readHead(in)).startsWith("HTTP/1.1 200");

            // A stream longer than the grace, its client far inside its send timeout: the shutdown cuts it.
            GatewayServer.ShutdownReport report = gateway.server.shutdown(Duration.ofMillis(300));

            assertThat(report.cut()).isEqualTo(1);
            assertThat(engineCut.await(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
            assertThat(gateway.accessLog.next().getString("end")).isEqualTo("shutdown_cut");
            assertThat(drainsToAnAbnormalEnd(in)).isTrue();
        }
    }

    /** Sends a streamed request on {@code client}, reads the answer's head, then reads nothing more. */
    private void stallAfterTheHead(Socket client) throws Exception {
        try (client) {
            InputStream in =
                    RawHttp.postChat(client, gateway.server.port(), 4096, 20_000, UpstreamFaultsIntegrationTest.STREAM);
            assertThat(readHead(in)).startsWith("HTTP/1.1 200");

            // Nothing read from here on: the gateway's writes block once the socket buffers are full.
            assertThat(engineCut.await(GatewayHarness.DEADLINE.toSeconds(), TimeUnit.SECONDS))
                    .as("the engine's stream was cut (it had written %d bytes)", streamed.get())
                    .isTrue();
            GatewayHarness.await("the request ended", () -> gateway.server.requestsInFlight() == 0);
            assertThat(gateway.metric("grid_inflight_body_bytes", "")).isZero();
            // The gateway closed the connection, the client did not leave: the access line and the metric say so.
            assertThat(gateway.accessLog.next().getString("end")).isEqualTo("send_timeout");
            assertThat(gateway.metric("grid_client_send_timeouts_total", "listener=\"client\""))
                    .isEqualTo(1);
            // What the client can still read ends abnormally: the connection was closed mid-stream.
            assertThat(drainsToAnAbnormalEnd(in)).isTrue();
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            if (head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                break;
            }
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** Reads what is left; true when the stream ends without the terminating chunk (or with a reset). */
    private static boolean drainsToAnAbnormalEnd(InputStream in) {
        byte[] buffer = new byte[64 * 1024];
        byte[] last = new byte[5];
        try {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                for (int i = 0; i < n; i++) {
                    System.arraycopy(last, 1, last, 0, 4);
                    last[4] = buffer[i];
                }
            }
        } catch (IOException reset) {
            return true;
        }
        return !new String(last, StandardCharsets.ISO_8859_1).equals("0\r\n\r\n");
    }
}
