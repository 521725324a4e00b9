package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
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
            assertThat(Answerer.at("127.0.0.1", gateway.port())).isEqualTo(Answerer.CLIENT);
            assertThat(Answerer.at("127.0.0.2", gateway.port())).isNotEqualTo(Answerer.CLIENT);
            assertThat(Answerer.at("127.0.0.2", gateway.adminPort())).isEqualTo(Answerer.ADMIN);
            assertThat(Answerer.at("127.0.0.1", gateway.adminPort())).isNotEqualTo(Answerer.ADMIN);
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
