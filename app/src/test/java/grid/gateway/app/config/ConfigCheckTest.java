package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigCheckTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void run_validConfig_printsTheEffectiveConfigAndReturnsZero() {
        Path file = write(dir, "config.yaml", MINIMAL);

        int code = run(file);

        assertThat(code).isZero();
        assertThat(text(out)).isEqualTo(EffectiveConfig.yaml(ConfigLoader.load(file)));
        assertThat(text(err)).isEmpty();
    }

    @Test
    void run_invalidConfig_printsEachProblemOnItsOwnLineAndReturnsTwo() {
        Path file = write(dir, "config.yaml", "server: {port: -1, admin-port: 1}\n" + MINIMAL);

        int code = run(file);

        assertThat(code).isEqualTo(2);
        assertThat(text(out)).isEmpty();
        assertThat(text(err).lines())
                .containsExactly(
                        "server.admin-port: unknown key (expected: admin_port; keys are snake_case)",
                        "server.port: -1 (expected: 0..65535)");
    }

    @Test
    void run_missingFile_returnsTwo() {
        Path file = dir.resolve("absent.yaml");

        int code = run(file);

        assertThat(code).isEqualTo(ConfigCheck.INVALID);
        assertThat(text(err).lines()).containsExactly(file + ": cannot read the config file (no such file)");
    }

    private int run(Path file) {
        return ConfigCheck.run(
                file,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static String text(ByteArrayOutputStream bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
