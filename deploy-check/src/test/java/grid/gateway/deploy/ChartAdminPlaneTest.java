package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's file-descriptor limit and admin plane: the container runs the image's entrypoint under
 * {@code ulimit -n openFileLimit} and the gateway derives {@code max_connections} from it (a number that does not fit
 * fails the render); the admin listener binds the pod's IP; the route explainer is off unless enabled with a token
 * Secret, mounted as a directory.
 */
class ChartAdminPlaneTest {
    private static final DockerfileText DOCKERFILE = DockerfileText.read(DeployPaths.dockerfile());

    @Test
    void defaults_runUnderTheOpenFileLimit_theImagesEntrypoint() {
        Map<String, Object> container = CiRenders.of("defaults").container();
        String entrypoint =
                DockerfileText.all(DOCKERFILE.runtime(), "ENTRYPOINT").get(0);

        assertThat(at(container, "command"))
                .isEqualTo(List.of(
                        "/bin/sh", "-c", "ulimit -n 65536 && exec java -jar /opt/grid-gateway/grid-gateway.jar"));
        // The exec'd command is the image's own ENTRYPOINT, word for word.
        assertThat(entrypoint).isEqualTo("[\"java\", \"-jar\", \"/opt/grid-gateway/grid-gateway.jar\"]");
        assertThat(at(CiRenders.of("defaults").config(), "server", "max_connections"))
                .isEqualTo("auto");
    }

    @Test
    void defaults_adminListenerBindsThePodsIp_explainerOff() {
        Rendered defaults = CiRenders.of("defaults");
        Map<String, Object> env = Rendered.named(at(defaults.container(), "env"), "GRID_GATEWAY_ADMIN_HOST");

        assertThat(at(env, "valueFrom", "fieldRef", "fieldPath")).isEqualTo("status.podIP");
        assertThat(at(defaults.config(), "server", "route_explain")).isEqualTo(Map.of("enabled", false));
        assertThat((List<?>) at(defaults.container(), "volumeMounts"))
                .noneMatch(mount -> "route-explain-token".equals(at(mount, "name")));
    }

    @Test
    void routeExplainEnabled_tokenSecretMounted_asADirectory() {
        Rendered rendered = CiRenders.of("admin-plane");

        assertThat(at(rendered.config(), "server", "route_explain"))
                .isEqualTo(Map.of("enabled", true, "token_file", "/var/run/grid/route-explain/token"));
        assertThat(at(rendered.config(), "server", "max_connections")).isEqualTo(16000);
        Map<String, Object> mount = Rendered.named(at(rendered.container(), "volumeMounts"), "route-explain-token");
        assertThat(mount)
                .containsEntry("mountPath", "/var/run/grid/route-explain")
                .doesNotContainKey("subPath");
        Map<String, Object> volume = Rendered.named(
                at(rendered.only("Deployment"), "spec", "template", "spec", "volumes"), "route-explain-token");
        assertThat(at(volume, "secret", "secretName")).isEqualTo("grid-route-explain");
        assertThat(at(rendered.container(), "command", 2))
                .isEqualTo("ulimit -n 32768 && exec java -jar /opt/grid-gateway/grid-gateway.jar");
    }

    @Test
    void adminHostSet_isTheConfigsAddress_noPodIp() throws IOException {
        Rendered rendered = render("server: {adminHost: 127.0.0.1}\nopenFileLimit: 0\n");

        assertThat(at(rendered.config(), "server", "admin_host")).isEqualTo("127.0.0.1");
        assertThat((List<?>) at(rendered.container(), "env"))
                .noneMatch(env -> "GRID_GATEWAY_ADMIN_HOST".equals(at(env, "name")));
        assertThat(at(rendered.container(), "command"))
                .as("openFileLimit 0: the image's entrypoint")
                .isNull();
    }

    @Test
    void maxConnections_thatTheOpenFileLimitCannotHold_failsTheRender() throws IOException {
        assertThat(renderError("server: {maxConnections: 40000}\n"))
                .contains("server.maxConnections: 40000 (expected: auto, or at most 32512");
        assertThat(renderError("server: {maxConnections: 0}\n")).contains("server.maxConnections: 0 (no limit)");
        assertThat(renderError("server: {routeExplain: {enabled: true}}\n"))
                .contains("server.routeExplain.tokenSecret is empty");
        assertThat(at(render("server: {maxConnections: 32512}\n").config(), "server", "max_connections"))
                .isEqualTo(32512);
    }

    @TempDir
    Path scratch;

    private Rendered render(String values) throws IOException {
        Path file = Files.writeString(scratch.resolve("values.yaml"), values);
        return Rendered.parse("test", Chart.repository().template(file));
    }

    private String renderError(String values) throws IOException {
        Path file = Files.writeString(scratch.resolve("values.yaml"), values);
        Throwable thrown = catchThrowable(() -> Chart.repository().template(file));
        assertThat(thrown).as("helm template refused %s", values).isNotNull();
        return thrown.getMessage();
    }
}
