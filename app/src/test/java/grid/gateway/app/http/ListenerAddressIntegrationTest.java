package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.routing.time.ManualClock;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code server.host} and {@code server.admin_host} choose the listeners' addresses. Linux routes
 * all of 127.0.0.0/8 to loopback, so binding 127.0.0.1 and 127.0.0.2 apart is observable without leaving the host.
 */
class ListenerAddressIntegrationTest {
    @TempDir
    Path dir;

    /** Which listener answers at an address: the admin answers {@code /health/live}, the client listener does not. */
    private enum Answerer {
        CLIENT,
        ADMIN,
        NOBODY
    }

    private static Answerer answerer(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            socket.setSoTimeout(10_000);
            socket.getOutputStream()
                    .write("GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            String statusLine = new BufferedReader(
                            new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            return String.valueOf(statusLine).startsWith("HTTP/1.1 200") ? Answerer.ADMIN : Answerer.CLIENT;
        } catch (ConnectException refused) {
            return Answerer.NOBODY;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void hostAndAdminHost_eachListenerBindsOnlyItsAddress() throws IOException {
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, """
                server:
                  port: 0
                  admin_port: 0
                  host: 127.0.0.1
                  admin_host: 127.0.0.2
                gateway:
                  site: east
                sites:
                %s
                """.formatted(GatewayHarness.oneEngine("http://127.0.0.1:1")));
        // No runtime override: the addresses come from the config, as in production.
        try (GatewayServer gateway = GatewayServer.start(
                ConfigLoader.load(file),
                new GatewayRuntime(new ManualClock(), new SplittableRandom(1), Optional.empty()))) {
            // Both ports are the kernel's choice, and it may give both listeners the same number, since
            // 127.0.0.1:p and 127.0.0.2:p do not conflict: so ask who answers, not whether anyone does.
            assertThat(answerer("127.0.0.1", gateway.port())).isEqualTo(Answerer.CLIENT);
            assertThat(answerer("127.0.0.2", gateway.port())).isNotEqualTo(Answerer.CLIENT);
            assertThat(answerer("127.0.0.2", gateway.adminPort())).isEqualTo(Answerer.ADMIN);
            assertThat(answerer("127.0.0.1", gateway.adminPort())).isNotEqualTo(Answerer.ADMIN);
        }
    }

    @Test
    void hostThatIsNoAddress_refusedByTheConfigCheck() throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, """
                server:
                  host: "0.0.0.0 evil"
                  max_body_bytes: 4096
                  max_inflight_body_bytes: 1024
                gateway:
                  site: east
                sites:
                %s
                """.formatted(GatewayHarness.oneEngine("http://127.0.0.1:1")));
        assertThatThrownBy(() -> ConfigLoader.load(file))
                .hasMessageContaining("server.host")
                .hasMessageContaining("server.max_inflight_body_bytes");
    }
}
