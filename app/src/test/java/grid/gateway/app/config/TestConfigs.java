package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Config texts and file helpers shared by the config tests. */
final class TestConfigs {
    /** The smallest valid config: the local site and one backend cluster. */
    static final String MINIMAL = """
            gateway:
              site: east
            sites:
              - name: east
                clusters:
                  - name: east-a
                    url: http://127.0.0.1:8001
                    models: [demo-model]
            """;

    /** A 16-byte key and a 20-byte one: valid tag keys. */
    static final String KEY_ONE = "first-key-0123456";

    static final String KEY_TWO = "second-key-0123456789";

    private TestConfigs() {}

    /** Writes {@code text} to {@code dir/name} and returns the path. */
    static Path write(Path dir, String name, String text) {
        return write(dir.resolve(name), text);
    }

    /** Writes {@code text} to {@code file} and returns it. */
    static Path write(Path file, String text) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The problems the config in {@code text} is refused with. */
    static List<String> problems(Path dir, String text) {
        return problems(write(dir, "config.yaml", text));
    }

    /** The problems the config file {@code file} is refused with. */
    static List<String> problems(Path file) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> ConfigLoader.load(file));
        assertThat(e).as("config refused").isNotNull();
        assertThat(e.getMessage()).isEqualTo(String.join("\n", e.problems()));
        return e.problems();
    }

    /** {@link #MINIMAL} with {@code lines} added to its gateway block. */
    static String withGateway(String lines) {
        return MINIMAL.replace("  site: east\n", "  site: east\n" + indent(lines, 2));
    }

    /** {@link #MINIMAL} with {@code lines} added to its cluster. */
    static String withCluster(String lines) {
        return MINIMAL.replace("        models: [demo-model]\n", "        models: [demo-model]\n" + indent(lines, 8));
    }

    /** {@code lines}, each indented by {@code spaces}, ending with a line break. */
    static String indent(String lines, int spaces) {
        return lines.stripTrailing().indent(spaces);
    }
}
