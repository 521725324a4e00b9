package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.SiteName;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The sample configs shipped in {@code etc/} stay valid. */
class ExampleConfigsTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("sampleConfigs")
    void check_sampleConfig_isValid(Path file) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int code = ConfigCheck.run(
                file,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(code).isZero();
    }

    @Test
    void load_exampleConfig_twoSitesThreeClustersServingDemoModel() {
        GatewayConfig config =
                ConfigLoader.load(etc().resolve("gateway-example.yaml")).config();

        assertThat(config.grid().sites()).containsExactly(new SiteName("east"), new SiteName("west"));
        assertThat(config.grid().clusters())
                .extracting(c -> c.id() + " " + c.url().getPort())
                .containsExactly("east/east-a 8001", "east/east-b 8002", "west/west-a 8003");
        assertThat(config.grid().clusters())
                .allSatisfy(c -> assertThat(c.serves("demo-model")).isTrue());
        assertThat(config.grid().clusters().stream().map(BackendCluster::url).map(u -> u.getHost()))
                .containsOnly("127.0.0.1");
    }

    static Stream<Path> sampleConfigs() throws IOException {
        try (Stream<Path> files = Files.list(etc())) {
            List<Path> yaml = files.filter(f -> f.getFileName().toString().endsWith(".yaml"))
                    .sorted()
                    .toList();
            assertThat(yaml).isNotEmpty();
            return yaml.stream();
        }
    }

    /** The repository's {@code etc/}, found from the module directory the tests run in. */
    private static Path etc() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("etc").resolve("gateway-example.yaml"))) {
                return dir.resolve("etc");
            }
        }
        throw new IllegalStateException(
                "no etc/gateway-example.yaml above " + Path.of("").toAbsolutePath());
    }
}
