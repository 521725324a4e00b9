package grid.gateway.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewayConfig;
import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code bin/demo --replicas N} runs the replicas example on its own Redis, without a password, on free ports. */
class ReplicaDemoTest {
    @Test
    void demoConfig_exampleOnTheDemosRedis_noPassword_freePorts() {
        Path file = ReplicaDemo.demoConfig(Path.of("../etc/gateway-replicas.yaml"), "redis://127.0.0.1:6399/0");

        GatewayConfig config = ConfigLoader.load(file).config();
        assertThat(config.sharing().redisUrl()).contains(URI.create("redis://127.0.0.1:6399/0"));
        assertThat(config.sharing().passwordFile()).isEmpty();
        assertThat(config.server().port()).isZero();
        assertThat(config.server().adminPort()).isZero();
        assertThat(config.grid().clusters()).hasSize(2);
    }
}
