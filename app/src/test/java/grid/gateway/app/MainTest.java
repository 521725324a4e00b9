package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void run_help_printsUsageAndExitsZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).startsWith("usage: grid-gateway --config FILE");
    }

    @Test
    void run_help_namesVersionAndTheEnvironment() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("--version", "GRID_GATEWAY_CONFIG", "GRID_GATEWAY_LOG_FORMAT=json");
    }

    @Test
    void run_version_printsTheBuildsVersionAndExitsZero() {
        assertThat(run("--version")).isZero();
        // version.properties is filtered by Maven with the project version (the root pom's).
        assertThat(out.toString(StandardCharsets.UTF_8)).matches("grid-gateway \\d+\\.\\d+\\.\\d+\\S*\\R");
        assertThat(Main.version()).isNotEqualTo("unknown");
    }

    @Test
    void run_unknownArguments_usageOnStderrExitsTwo() {
        assertThat(run()).isEqualTo(2);
        assertThat(run("--serve")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage:");
    }

    @Test
    void run_checkConfigOfMissingFile_exitsTwo() {
        assertThat(run("--check-config", "/nonexistent/grid.yaml")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isNotEmpty();
    }

    @Test
    void run_redisPasswordFileMissing_configErrorNamingKeyAndPathExitsTwo(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(
                dir.resolve("grid.yaml"),
                "gateway:\n  site: east\nsites:\n  - name: east\n    clusters:\n      - name: east-a\n"
                        + "        url: http://127.0.0.1:8001\n        models: [demo-model]\n"
                        + "plugins:\n  grid_site_route:\n    prefix_affinity:\n      sharing:\n"
                        + "        redis_url: redis://127.0.0.1:6379\n        password_file: absent\n");

        assertThat(run("--check-config", config.toString())).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("sharing.password_file: \"" + dir.resolve("absent")
                        + "\": cannot read the Redis password file (no such file)")
                .doesNotContain("Exception")
                .doesNotContain("\tat ");
    }

    @Test
    void configToServe_argumentOrEnvironment() {
        assertThat(Main.configToServe(new String[] {"--config", "a.yaml"}, Map.of()))
                .contains(Path.of("a.yaml"));
        assertThat(Main.configToServe(new String[0], Map.of("GRID_GATEWAY_CONFIG", "b.yaml")))
                .contains(Path.of("b.yaml"));
        assertThat(Main.configToServe(new String[0], Map.of())).isEmpty();
        assertThat(Main.configToServe(new String[] {"--check-config", "a.yaml"}, Map.of()))
                .isEmpty();
    }
}
