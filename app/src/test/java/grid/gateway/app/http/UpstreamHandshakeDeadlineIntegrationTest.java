package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An https engine that trickles its TLS handshake (a record header announcing 16 KiB, then a byte every {@link #PACE},
 * each far within the socket timeout): the connect and the handshake together end within {@code connect_timeout_ms},
 * so the client gets the 502 of a connect failure instead of waiting as long as the engine cares to trickle (16 Ki
 * bytes at that pace: over 13 minutes). The verdict is that the 502 comes while the engine still trickles, not how
 * soon: the client's deadline ({@link GatewayHarness#DEADLINE}) only stops a test whose gateway waits for the whole
 * handshake. The connect timeout is forty paces, so a per-read socket timeout (the gateway's other bound on a
 * handshake) cuts the trickle only if the engine's thread is left unscheduled for that long.
 */
class UpstreamHandshakeDeadlineIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
    /** A TLS handshake record header (type 22, TLS 1.2) announcing a 16 KiB record: the client waits for all of it. */
    private static final byte[] RECORD_HEADER = {0x16, 0x03, 0x03, 0x40, 0x00};
    /** The engine's pace between two bytes of its handshake. */
    private static final long PACE = 50;

    @TempDir
    Path dir;

    private final ExecutorService engine = Executors.newVirtualThreadPerTaskExecutor();
    private ServerSocket listener;
    private GatewayHarness gateway;

    @AfterEach
    void tearDown() throws Exception {
        if (gateway != null) {
            gateway.close();
        }
        if (listener != null) {
            listener.close();
        }
        engine.shutdownNow();
        engine.awaitTermination(5, TimeUnit.SECONDS);
    }

    @Test
    void tricklingHandshake_cutAtTheConnectTimeout_502() throws Exception {
        listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        engine.submit(this::trickleEveryHandshake);
        gateway = new GatewayHarness(dir, GatewayHarness.config("""
                          upstream:
                            connect_timeout_ms: 2000
                        """, """
                          - name: east
                            clusters:
                              - name: east-a
                                url: https://127.0.0.1:%d
                                metrics_url: http://127.0.0.1:1/metrics
                                models: [demo-model]
                        """.formatted(listener.getLocalPort())));

        // Without a deadline on the whole handshake the client would wait as long as the engine trickles, far past
        // the harness's deadline on the request (which decides nothing else).
        HttpResponse<String> answer = gateway.send(HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                .header("Content-Type", "application/json")
                .build());

        assertThat(answer.statusCode()).isEqualTo(502);
        assertThat(answer.body()).contains("\"code\":\"bad_gateway\"");
        assertThat(gateway.metrics()).containsPattern("grid_upstream_errors_total\\{[^}]*kind=\"connect\"[^}]*} [1-9]");
    }

    /** Accepts connections and, on each, answers the ClientHello with a record header, then a byte every pace. */
    private void trickleEveryHandshake() {
        while (!listener.isClosed()) {
            try {
                Socket socket = listener.accept();
                engine.submit(() -> trickle(socket));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private static void trickle(Socket socket) {
        try (socket) {
            InputStream in = socket.getInputStream();
            byte[] hello = new byte[16 * 1024];
            if (in.read(hello) < 0) {
                return;
            }
            OutputStream out = socket.getOutputStream();
            out.write(RECORD_HEADER);
            out.flush();
            for (int i = 0; i < 16 * 1024; i++) {
                Thread.sleep(PACE); // the engine's pace, well within any socket timeout: not a synchronisation
                out.write(0);
                out.flush();
            }
        } catch (IOException | InterruptedException gone) {
            // The gateway closed the connection, or the test ended.
        }
    }
}
