package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static grid.gateway.deploy.Rendered.named;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart's TLS values (docs/tls.md): each kubernetes.io/tls Secret named is mounted once, as a directory (so a
 * renewal reaches the running gateway), and the config's TLS blocks name its {@code tls.crt}, {@code tls.key} and
 * {@code ca.crt} there; without TLS values nothing of it is rendered.
 */
class ChartTlsTest {
    private static final String DIR = "/var/run/grid/tls/";

    @Test
    void tls_rendersEveryBlockWithTheMountedSecretsFiles() {
        Map<String, Object> config = CiRenders.of("tls").config();

        assertThat(at(config, "server", "tls"))
                .isEqualTo(Map.of(
                        "cert_file", DIR + "grid-gateway-east/tls.crt", "key_file", DIR + "grid-gateway-east/tls.key"));
        assertThat(at(config, "server", "admin_tls"))
                .isEqualTo(Map.of(
                        "cert_file", DIR + "grid-gateway-east-admin/tls.crt",
                        "key_file", DIR + "grid-gateway-east-admin/tls.key",
                        "client_ca_file", DIR + "grid-gateway-east-admin/ca.crt",
                        "client_auth", "optional"));
        assertThat(at(config, "gateway", "upstream", "tls")).isEqualTo(Map.of("ca_file", DIR + "grid-ca/ca.crt"));
        assertThat(at(config, "sites", 1, "clusters", 0, "tls"))
                .isEqualTo(Map.of(
                        "ca_file", DIR + "grid-east-to-west/ca.crt",
                        "cert_file", DIR + "grid-east-to-west/tls.crt",
                        "key_file", DIR + "grid-east-to-west/tls.key",
                        "server_name", "gateway.west.example.com"));
    }

    @Test
    void tls_mountsEachSecretOnceAsADirectory() {
        Rendered rendered = CiRenders.of("tls");
        Map<String, Object> pod = Values.map(at(rendered.only("Deployment"), "spec", "template", "spec"));
        List<String> secrets = List.of("grid-ca", "grid-east-to-west", "grid-gateway-east", "grid-gateway-east-admin");

        for (int i = 0; i < secrets.size(); i++) {
            String volume = "tls-" + i;
            assertThat(at(named(pod.get("volumes"), volume), "secret", "secretName"))
                    .isEqualTo(secrets.get(i));
            assertThat(named(rendered.container().get("volumeMounts"), volume))
                    .isEqualTo(Map.of("name", volume, "mountPath", DIR + secrets.get(i), "readOnly", true));
        }
        assertThat((List<?>) pod.get("volumes")).hasSize(secrets.size() + 2); // config and tmp
    }

    @Test
    void defaults_renderNoTlsBlockNorVolume() {
        Rendered rendered = CiRenders.of("defaults");

        assertThat(Values.map(at(rendered.config(), "server"))).doesNotContainKeys("tls", "admin_tls");
        assertThat(Values.map(at(rendered.config(), "gateway", "upstream"))).doesNotContainKey("tls");
        assertThat(rendered.text()).doesNotContain("tls-0");
    }
}
