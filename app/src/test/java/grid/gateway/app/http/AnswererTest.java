package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Answerer} tells a gateway's client and admin listeners apart, and from whatever else may listen at an address
 * the gateway does not hold: an HTTP server that is no gateway is neither.
 */
class AnswererTest {
    @TempDir
    Path dir;

    @Test
    void aGatewaysListeners_clientAndAdmin() {
        try (GatewayHarness gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        "", GatewayHarness.oneEngine(RefusingPort.shared().url())))) {
            assertThat(Answerer.at("127.0.0.1", gateway.server.port())).isEqualTo(Answerer.CLIENT);
            assertThat(Answerer.at("127.0.0.1", gateway.server.adminPort())).isEqualTo(Answerer.ADMIN);
        }
    }

    @Test
    void anotherServer_answeringNotFound_isNoGatewayListener() throws Exception {
        try (ServerSocket other = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.2"))) {
            Thread server = Thread.ofPlatform().start(() -> answerOnce(other));
            assertThat(Answerer.at("127.0.0.2", other.getLocalPort())).isEqualTo(Answerer.OTHER);
            server.join(GatewayHarness.DEADLINE.toMillis());
        }
    }

    @Test
    void nothingListening_nobody() {
        assertThat(Answerer.at("127.0.0.1", RefusingPort.shared().port())).isEqualTo(Answerer.NOBODY);
    }

    /** Answers one request as an HTTP server that knows no {@code /health/live} (an engine, another service). */
    private static void answerOnce(ServerSocket listener) {
        try (Socket socket = listener.accept()) {
            socket.getInputStream().read(new byte[4096]);
            socket.getOutputStream()
                    .write(
                            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 22\r\n\r\n{\"detail\":\"Not Found\"}"
                                    .getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            // The test ended first.
        }
    }
}
