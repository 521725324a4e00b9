package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code values.schema.json}: Helm checks it on lint, template, install and upgrade, so an unknown or misspelt
 * value, or one of the wrong type, fails before anything is rendered; and the chart has a value for every setting of
 * the gateway's {@code server} block.
 */
class ValuesSchemaTest {
    private static Map<String, Object> schema() throws IOException {
        return Values.map(new Yaml().load(Files.readString(DeployPaths.chart().resolve("values.schema.json"))));
    }

    private static String templateError(Path scratch, String values) throws IOException {
        Path file = scratch.resolve("values.yaml");
        Files.writeString(file, values);
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(
                () -> Chart.repository().template(file));
        assertThat(thrown).as("helm template refused %s", values).isNotNull();
        return thrown.getMessage();
    }

    @Test
    void unknownTopLevelKey_isRefused(@TempDir Path scratch) throws IOException {
        assertThat(templateError(scratch, "terminationGracePeriodSecond: 40\n"))
                .contains("terminationGracePeriodSecond")
                .contains("additional properties");
    }

    @Test
    void unknownNestedKey_isRefusedWithItsPath(@TempDir Path scratch) throws IOException {
        assertThat(templateError(scratch, "server: {shutdownDelaySeconds: 10}\n"))
                .contains("/server")
                .contains("shutdownDelaySeconds");
        assertThat(templateError(scratch, "gridServing: {siteRoute: {prefixAffinity: {ttl_secs: 60}}}\n"))
                .contains("/gridServing/siteRoute/prefixAffinity")
                .contains("ttl_secs");
    }

    @Test
    void wrongType_isRefused(@TempDir Path scratch) throws IOException {
        assertThat(templateError(scratch, "server: {shutdownGraceMs: \"30s\"}\n"))
                .contains("/server/shutdownGraceMs");
        assertThat(templateError(scratch, "gridServing: {role: gateway}\n")).contains("/gridServing/role");
    }

    @Test
    void loadAndLearningSettings_areAcceptedAndRendered(@TempDir Path scratch) throws IOException {
        // The optional load and learning keys of the gateway: the chart takes them; by default the server keys render
        // the gateway's own defaults and no prefix_affinity block is rendered.
        Path file = scratch.resolve("values.yaml");
        Files.writeString(file, """
                server: {maxInflightBodyBytes: 268435456, maxConnections: 4096, host: 0.0.0.0, adminHost: 127.0.0.1}
                gridServing:
                  siteRoute:
                    load: {countSentSinceScrape: true, orderBy: expected_wait}
                    prefixAffinity: {capacity: auto, prefillTokensPerSecond: auto, queuedRequestSeconds: 2.5,
                                     learnFromUsage: true}
                """);

        Map<String, Object> config =
                Rendered.parse("next", Chart.repository().template(file)).config();

        assertThat(Values.map(at(config, "server")))
                .containsEntry("max_inflight_body_bytes", 268435456)
                .containsEntry("max_connections", 4096)
                .containsEntry("host", "0.0.0.0")
                .containsEntry("admin_host", "127.0.0.1");
        assertThat(at(config, "plugins", "grid_site_route", "load", "count_sent_since_scrape"))
                .isEqualTo(true);
        assertThat(at(config, "plugins", "grid_site_route", "load", "order_by")).isEqualTo("expected_wait");
        assertThat(at(config, "plugins", "grid_site_route", "prefix_affinity"))
                .isEqualTo(Map.of(
                        "capacity",
                        "auto",
                        "prefill_tokens_per_second",
                        "auto",
                        "queued_request_seconds",
                        2.5,
                        "learn_from_usage",
                        true));
        assertThat(Values.map(at(CiRenders.of("defaults").config(), "server")))
                .containsEntry("max_inflight_body_bytes", 0)
                .containsEntry("max_connections", "auto")
                .containsEntry("host", "0.0.0.0")
                // The gateway's default, overridden in the pod by GRID_GATEWAY_ADMIN_HOST (ChartAdminPlaneTest).
                .containsEntry("admin_host", "127.0.0.1");
    }

    @Test
    void everyObjectTheChartDefines_refusesUnknownKeys() throws IOException {
        List<String> open = new ArrayList<>();
        walk(schema(), "", open);

        assertThat(open).isEmpty();
    }

    @Test
    void chart_rendersEveryServerSettingTheGatewayHas(@TempDir Path scratch) {
        // The gateway's effective config lists every key of its server block, defaults filled in.
        Rendered defaults = CiRenders.of("defaults");
        CheckableConfig.Result effective = CheckableConfig.check(defaults, scratch);
        Map<String, Object> gatewayServer = Values.map(at(new Yaml().load(effective.out()), "server"));

        assertThat(Values.map(at(defaults.config(), "server")).keySet())
                .containsExactlyInAnyOrderElementsOf(gatewayServer.keySet());
    }

    /**
     * Records each object schema under {@code path} that accepts keys it does not name: those with properties must set
     * additionalProperties false; those without are maps of strings or Kubernetes objects the chart passes through
     * (described as such, and checked against the Kubernetes schema on render).
     */
    private static void walk(Map<String, Object> node, String path, List<String> open) {
        if ("object".equals(node.get("type"))) {
            boolean closed = Boolean.FALSE.equals(node.get("additionalProperties"));
            boolean stringMap =
                    node.get("additionalProperties") instanceof Map<?, ?> values && "string".equals(values.get("type"));
            boolean passThrough = !node.containsKey("properties")
                            && String.valueOf(node.get("description")).contains("Kubernetes")
                    || path.equals("/properties/global");
            if (!closed && !stringMap && !passThrough) {
                open.add(path);
            }
        }
        node.forEach((key, value) -> {
            if (value instanceof Map<?, ?> child) {
                walk(Values.map(child), path + "/" + key, open);
            }
        });
    }

    @Test
    void snakeCaseKey_refusedByTheTemplateToo_whenTheSchemaIsRemoved(@TempDir Path scratch) throws IOException {
        // The templates keep their own key checks (they name the key path in the chart's words); without the schema
        // they still refuse a snake_case spelling.
        Path copy = Chart.repository().copyTo(scratch.resolve("chart"));
        Files.delete(copy.resolve("values.schema.json"));
        Path values = scratch.resolve("values.yaml");
        Files.writeString(values, "gridServing: {siteRoute: {prefixAffinity: {ttl_secs: 60}}}\n");

        assertThatThrownBy(() -> new Chart(copy).template(values))
                .hasMessageContaining("gridServing.siteRoute.prefixAffinity.ttl_secs: unknown key");
    }
}
