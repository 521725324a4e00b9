package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.docs.RepoDocs;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.Role;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.tag.ClusterDigest;
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

/**
 * The sample configs shipped in {@code etc/} stay valid, and each still shows what its name promises: the smallest
 * config, two sites, a provider role, a tag key.
 */
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

    @Test
    void load_minimalConfig_oneSiteOneClusterConsumerUnsigned() {
        GatewaySnapshot snapshot = ConfigLoader.load(etc().resolve("gateway-minimal.yaml"));
        GatewayConfig config = snapshot.config();

        assertThat(config.grid().sites()).containsExactly(new SiteName("east"));
        assertThat(config.grid().clusters()).hasSize(1);
        assertThat(config.gateway().role()).isEqualTo(Role.CONSUMER);
        assertThat(config.gateway().tagKeyPath()).isEmpty();
        assertThat(snapshot.keyRing().hasKey()).isFalse();
    }

    @Test
    void load_exampleConfig_consumerUnsignedWithEveryDefaultWrittenOut() {
        GatewaySnapshot example = ConfigLoader.load(etc().resolve("gateway-example.yaml"));

        assertThat(example.config().gateway().role()).isEqualTo(Role.CONSUMER);
        assertThat(example.keyRing().hasKey()).isFalse();
        // bin/demo starts its engines and the gateway from this file on these ports.
        assertThat(example.config().server().port()).isEqualTo(8080);
        assertThat(example.config().server().adminPort()).isEqualTo(9090);
    }

    @Test
    void load_providerConfig_providerRoleForwardsOnlyCreatePathsOfItsOwnSite() {
        GatewayConfig config =
                ConfigLoader.load(etc().resolve("gateway-provider.yaml")).config();

        assertThat(config.gateway().role()).isEqualTo(Role.PROVIDER);
        assertThat(config.gateway().site()).isEqualTo(new SiteName("west"));
        assertThat(config.gateway().allowedPaths())
                .containsExactly("/v1/chat/completions", "/v1/completions", "/v1/messages");
        assertThat(config.grid().sites()).containsExactly(new SiteName("west"));
        assertThat(config.grid().clusters()).hasSize(2);
    }

    @Test
    void load_withKeyConfig_twoSitesSignedByTheExampleKeyFile() {
        Path keyFile = etc().resolve("keys").resolve("tag-key.example");
        GatewaySnapshot snapshot = ConfigLoader.load(etc().resolve("gateway-with-key.yaml"));

        assertThat(snapshot.config().grid().sites()).containsExactly(new SiteName("east"), new SiteName("west"));
        assertThat(snapshot.config().gateway().tagKeyPath())
                .contains(keyFile.toAbsolutePath().normalize());
        assertThat(snapshot.keyRing().keyCount()).isEqualTo(1);
        String mac = snapshot.keyRing().sign("east", ClusterDigest.of("east-a"));
        // The signed example tag of docs/stored-ids.md is this key's mac for east/east-a.
        assertThat(mac).isEqualTo("71af7e570e139722");
        assertThat(RepoDocs.docSection("docs/stored-ids.md", "Stored ids"))
                .contains("resp_east.1ef772aa." + mac + ".abc123");
    }

    @Test
    void exampleKeyFile_saysItIsAnExample_andTheConfigSaysHowToMakeARealOne() throws IOException {
        assertThat(Files.readString(etc().resolve("keys").resolve("tag-key.example")))
                .startsWith("EXAMPLE-ONLY");
        assertThat(Files.readString(etc().resolve("gateway-with-key.yaml")))
                .contains("head -c 32 /dev/urandom | base64");
    }

    @Test
    void etc_shipsTheFourExamplesTheReadmeNames() throws IOException {
        assertThat(sampleConfigs().map(p -> p.getFileName().toString()))
                .contains(
                        "gateway-minimal.yaml",
                        "gateway-example.yaml",
                        "gateway-provider.yaml",
                        "gateway-with-key.yaml");
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
    static Path etc() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("etc").resolve("gateway-example.yaml"))) {
                return dir.resolve("etc");
            }
        }
        throw new IllegalStateException(
                "no etc/gateway-example.yaml above " + Path.of("").toAbsolutePath());
    }
}
