package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static grid.gateway.deploy.Rendered.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code prefixSharing}: the chart points the replicas at an existing Redis (none bundled), with the password from an
 * existing Secret mounted as a file, and the gateway accepts what it renders.
 */
class ChartSharingTest {
    @Test
    void sharing_rendersTheSharingBlock_mountsThePasswordSecret_bundlesNoRedis() {
        Rendered rendered = CiRenders.of("prefix-sharing");
        Map<String, Object> pod = Values.map(at(rendered.only("Deployment"), "spec", "template", "spec"));

        assertThat(at(rendered.config(), "plugins", "grid_site_route", "prefix_affinity"))
                .isEqualTo(Map.of(
                        "sharing",
                        Map.of(
                                "redis_url",
                                "redis://gateway@redis-master.redis.svc.cluster.local:6380/1",
                                "stream",
                                "east-prefix-memory",
                                "warm_start_ms",
                                3000,
                                "share_backlog",
                                true,
                                "confirm_wait_ms",
                                250,
                                "password_file",
                                "/var/run/grid/redis/redis-password")));
        assertThat(at(named(pod.get("volumes"), "redis-password"), "secret", "secretName"))
                .isEqualTo("redis-credentials");
        assertThat(at(named(rendered.container().get("volumeMounts"), "redis-password"), "mountPath"))
                .isEqualTo("/var/run/grid/redis");
        assertThat(rendered.ofKind("Secret")).isEmpty();
        assertThat(rendered.kinds()).doesNotContain("StatefulSet");
        assertThat(rendered.text()).doesNotContain("image: redis").doesNotContain("image: valkey");
    }

    @Test
    void sharing_restrictedEgress_allowsTheRedisPort() {
        Map<String, Object> policy = CiRenders.of("prefix-sharing").only("NetworkPolicy");
        List<?> egress = (List<?>) at(policy, "spec", "egress");

        assertThat(egress)
                .anySatisfy(rule -> assertThat(at(rule, "ports", 0, "port")).isEqualTo(6380));
    }

    @Test
    void sharing_effectiveConfig_acceptedByTheGateway(@TempDir Path scratch) {
        CheckableConfig.Result result = CheckableConfig.check(CiRenders.of("prefix-sharing"), scratch);
        Map<String, Object> effective = Values.map(new Yaml().load(result.out()));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(at(effective, "plugins", "grid_site_route", "prefix_affinity", "sharing", "redis_url"))
                .isEqualTo("redis://gateway@redis-master.redis.svc.cluster.local:6380/1");
    }

    @Test
    void defaults_noSharing_noRedisVolume() {
        Rendered rendered = CiRenders.of("defaults");

        assertThat(rendered.text()).doesNotContain("redis");
    }

    @Test
    void schema_refusesAPasswordInTheUrl(@TempDir Path scratch) throws Exception {
        Path values = scratch.resolve("password-in-url-values.yaml");
        Files.writeString(values, "prefixSharing: {redisUrl: \"redis://:secret@redis:6379/0\"}\n");

        assertThatThrownBy(() -> Chart.repository().template(values))
                .hasMessageContaining("prefixSharing")
                .hasMessageContaining("redisUrl");
    }
}
