package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.ConfigCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.Yaml;

/**
 * Every rendered ConfigMap holds a config the gateway's own validation ({@code --check-config}, {@link ConfigCheck})
 * accepts, so the chart can never render a config the gateway refuses; and a bad values file is caught.
 */
class RenderedConfigTest {
    static Collection<Rendered> renders() {
        return CiRenders.all();
    }

    @ParameterizedTest
    @MethodSource("renders")
    void renderedConfig_passesTheGatewaysCheck(Rendered rendered, @TempDir Path scratch) {
        CheckableConfig.Result result = CheckableConfig.check(rendered, scratch);

        assertThat(result.err()).as(rendered.name()).isEmpty();
        assertThat(result.exitCode()).as(rendered.name()).isEqualTo(ConfigCheck.VALID);
    }

    @Test
    void defaults_effectiveConfigIsTheGatewaysOwnDefaults(@TempDir Path scratch) throws IOException {
        // The chart's defaults must equal the gateway's: the same grid written with nothing but the required keys
        // gives the same effective config, key for key. One deliberate exception: the chart's preStop delay
        // (server.shutdown_delay_ms 10000; the gateway's default 0 suits a process stopped by hand).
        Rendered rendered = CiRenders.of("defaults");
        Map<String, Object> minimal = Map.of(
                "server", Map.of("shutdown_delay_ms", 10_000),
                "gateway", Map.of("site", at(rendered.config(), "gateway", "site")),
                "sites", at(rendered.config(), "sites"));
        Path minimalFile = scratch.resolve("minimal/config.yaml");
        Files.createDirectories(minimalFile.getParent());
        Files.writeString(minimalFile, new Yaml().dump(minimal));

        CheckableConfig.Result chart = CheckableConfig.check(rendered, scratch.resolve("chart"));
        CheckableConfig.Result gateway =
                CheckableConfig.check(Rendered.parse("minimal", configMapOf(minimalFile)), scratch.resolve("gw"));

        assertThat(chart.exitCode()).isEqualTo(ConfigCheck.VALID);
        assertThat(chart.out()).isEqualTo(gateway.out());
    }

    @Test
    void prefixAffinity_effectiveConfigCarriesTheValues(@TempDir Path scratch) {
        CheckableConfig.Result result = CheckableConfig.check(CiRenders.of("prefix-affinity"), scratch);
        Map<String, Object> effective = Values.map(new Yaml().load(result.out()));

        assertThat(at(effective, "plugins", "grid_site_route", "prefix_affinity"))
                .isEqualTo(Map.of(
                        "capacity",
                        32768,
                        "ttl_secs",
                        1200,
                        "prefill_tokens_per_second",
                        12500.5,
                        "queued_request_seconds",
                        3,
                        // Not rendered by the chart yet: the gateway's default, which --check-config prints.
                        "learn_from_usage",
                        false,
                        // No prefixSharing.redisUrl: no sharing, the block's defaults printed.
                        "sharing",
                        Map.of(
                                "stream",
                                "grid-prefix-memory",
                                "warm_start_ms",
                                5000,
                                "share_backlog",
                                false,
                                "confirm_wait_ms",
                                0)));
    }

    @Test
    void upstreamMaxConnectionAge_unsetByDefault_renderedWhenSet(@TempDir Path scratch) throws IOException {
        Path values = scratch.resolve("age-values.yaml");
        Files.writeString(values, "gridServing: {upstream: {maxConnectionAgeMs: 3600000}}\n");
        CheckableConfig.Result set = CheckableConfig.check(
                Rendered.parse("age", Chart.repository().template(values)), scratch.resolve("set"));
        CheckableConfig.Result unset = CheckableConfig.check(CiRenders.of("defaults"), scratch.resolve("unset"));

        assertThat(set.exitCode()).isEqualTo(ConfigCheck.VALID);
        assertThat(at(Values.map(new Yaml().load(set.out())), "gateway", "upstream", "max_connection_age_ms"))
                .isEqualTo(3_600_000);
        assertThat(Values.map(at(Values.map(new Yaml().load(unset.out())), "gateway", "upstream")))
                .doesNotContainKey("max_connection_age_ms");
    }

    @Test
    void createdSecret_keyValueIsCheckedToo(@TempDir Path scratch) throws IOException {
        // The chart creates the Secret from tagKey.value; a key under 16 bytes must be refused as the gateway would.
        Path values = scratch.resolve("short-key-values.yaml");
        Files.writeString(values, "tagKey: {create: true, value: too-short}\n");
        Rendered rendered = Rendered.parse("short-key", Chart.repository().template(values));

        CheckableConfig.Result result = CheckableConfig.check(rendered, scratch.resolve("check"));

        assertThat(result.exitCode()).isEqualTo(ConfigCheck.INVALID);
        assertThat(result.err()).contains("gateway.tag_key_path").doesNotContain("too-short");
    }

    @Test
    void invalidValues_renderAConfigTheGatewayRefusesWithKeyPaths(@TempDir Path scratch) {
        // Helm renders these values without complaint; only the gateway's validation can tell they are wrong.
        Rendered rendered =
                Rendered.parse("invalid", Chart.repository().template(DeployPaths.resource("invalid-values.yaml")));

        CheckableConfig.Result result = CheckableConfig.check(rendered, scratch);

        assertThat(result.exitCode()).isEqualTo(ConfigCheck.INVALID);
        assertThat(result.out()).isEmpty();
        assertThat(result.err())
                .contains("gateway.site")
                .contains("sites[0].name")
                .contains("sites[0].clusters[0].max_queue_depth")
                .contains("plugins.grid_site_route.prefix_affinity.ttl_secs");
    }

    /** A minimal manifest holding {@code file} as a ConfigMap, so that the same check path is used. */
    private static String configMapOf(Path file) throws IOException {
        String indented = Files.readString(file).indent(4);
        return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: minimal}\ndata:\n  config.yaml: |\n" + indented;
    }
}
