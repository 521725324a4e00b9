package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
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

    private static boolean accepts(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            return true;
        } catch (ConnectException refused) {
            return false;
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
            assertThat(accepts("127.0.0.1", gateway.port())).isTrue();
            assertThat(accepts("127.0.0.2", gateway.port())).isFalse();
            assertThat(accepts("127.0.0.2", gateway.adminPort())).isTrue();
            assertThat(accepts("127.0.0.1", gateway.adminPort())).isFalse();
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
