package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static grid.gateway.deploy.Rendered.named;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The extension points and defaults a cluster operator expects: JVM flags sized to the container, spreading,
 * startup probe, extra volumes and env, priority class, image by registry and digest, NetworkPolicy, PrometheusRule
 * and the dashboard for Grafana's sidecar (each validated against its schema by {@link ManifestSchemaTest}).
 */
class ChartExtensionsTest {
    private static String javaToolOptions(Rendered rendered) {
        return (String) at(named(rendered.container().get("env"), "JAVA_TOOL_OPTIONS"), "value");
    }

    private static Map<String, Object> podSpec(Rendered rendered) {
        return Values.map(at(rendered.only("Deployment"), "spec", "template", "spec"));
    }

    @Test
    void defaults_jvmUsesG1_processorsFromTheCpuRequest_andMemoryRequestEqualsLimit() {
        Rendered rendered = CiRenders.of("defaults");

        assertThat(javaToolOptions(rendered))
                .isEqualTo(
                        "-XX:+UseG1GC -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -XX:ActiveProcessorCount=2");
        assertThat(at(rendered.container(), "resources", "requests", "memory"))
                .isEqualTo(at(rendered.container(), "resources", "limits", "memory"));
    }

    @Test
    void extraJavaOptions_areAppended_soExitOnOutOfMemoryErrorStays() {
        // cpu 3500m rounds up to 4 processors.
        assertThat(javaToolOptions(CiRenders.of("extensions")))
                .isEqualTo("-XX:+UseG1GC -XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -XX:ActiveProcessorCount=4"
                        + " -Xlog:gc:stderr -XX:MaxRAMPercentage=60");
    }

    @Test
    void activeProcessorCount_explicitOrOff() {
        Path defaults = DeployPaths.ciValues("defaults");
        Rendered three =
                Rendered.parse("3", Chart.repository().template(defaults, Map.of("jvm.activeProcessorCount", 3)));
        Rendered off =
                Rendered.parse("0", Chart.repository().template(defaults, Map.of("jvm.activeProcessorCount", 0)));

        assertThat(javaToolOptions(three)).endsWith("-XX:ActiveProcessorCount=3");
        assertThat(javaToolOptions(off)).doesNotContain("ActiveProcessorCount");
    }

    @Test
    void defaults_spreadSoftlyOverNodesAndZones() {
        List<?> constraints = (List<?>) podSpec(CiRenders.of("defaults")).get("topologySpreadConstraints");

        assertThat(constraints).hasSize(2);
        assertThat(constraints.stream().map(c -> at(c, "topologyKey")))
                .containsExactly("kubernetes.io/hostname", "topology.kubernetes.io/zone");
        assertThat(constraints).allSatisfy(c -> {
            assertThat(at(c, "whenUnsatisfiable")).isEqualTo("ScheduleAnyway");
            assertThat(at(c, "labelSelector", "matchLabels"))
                    .isEqualTo(at(CiRenders.of("defaults").only("Deployment"), "spec", "selector", "matchLabels"));
        });
    }

    @Test
    void defaults_startupProbeGuardsLivenessWhileTheJvmStarts() {
        assertThat(at(CiRenders.of("defaults").container(), "startupProbe", "httpGet"))
                .isEqualTo(Map.of("path", "/health/live", "port", "admin"));
        assertThat(at(CiRenders.of("defaults").container(), "startupProbe", "failureThreshold"))
                .isEqualTo(30);
    }

    @Test
    void extensions_volumesEnvPriorityAndImageByDigest() {
        Rendered rendered = CiRenders.of("extensions");
        Map<String, Object> container = rendered.container();

        assertThat(container.get("image"))
                .isEqualTo("registry.example.com/inference/grid-gateway@sha256:"
                        + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
        assertThat(named(container.get("env"), "TZ")).containsEntry("value", "UTC");
        assertThat(at(container, "envFrom", 0, "configMapRef", "name")).isEqualTo("gateway-extra-env");
        assertThat(named(container.get("volumeMounts"), "ca-bundle")).containsEntry("mountPath", "/etc/ssl/grid");
        assertThat(at(named(podSpec(rendered).get("volumes"), "ca-bundle"), "configMap", "name"))
                .isEqualTo("ca-bundle");
        assertThat(podSpec(rendered)).containsEntry("priorityClassName", "inference-critical");
    }

    @Test
    void networkPolicy_letsClientsAndMonitoringIn_andOnlyDnsAndTheEnginesPortsOut() {
        Map<String, Object> policy = CiRenders.of("extensions").only("NetworkPolicy");

        assertThat(at(policy, "spec", "podSelector", "matchLabels"))
                .isEqualTo(at(CiRenders.of("extensions").only("Deployment"), "spec", "selector", "matchLabels"));
        assertThat(at(policy, "spec", "policyTypes")).isEqualTo(List.of("Ingress", "Egress"));
        assertThat(at(policy, "spec", "ingress", 0, "ports", 0, "port")).isEqualTo("http");
        assertThat(at(policy, "spec", "ingress", 0, "from", 0, "namespaceSelector", "matchLabels"))
                .isEqualTo(Map.of("kubernetes.io/metadata.name", "ingress"));
        assertThat(at(policy, "spec", "ingress", 1, "ports", 0, "port")).isEqualTo("admin");
        assertThat(at(policy, "spec", "egress", 0, "ports", 0, "port")).isEqualTo(53);
        // east-a's url (8000) and metricsUrl (9400), west-a's https url without a port (443).
        assertThat(((List<?>) at(policy, "spec", "egress", 1, "ports")).stream().map(p -> at(p, "port")))
                .containsExactlyInAnyOrder(8000, 9400, 443);
    }

    @Test
    void prometheusRule_alertsOnRefusedReloadsClustersCachedTokensAndUpstreamErrors() {
        Map<String, Object> rule = CiRenders.of("extensions").only("PrometheusRule");
        List<?> rules = (List<?>) at(rule, "spec", "groups", 0, "rules");

        assertThat(at(rule, "metadata", "labels", "release")).isEqualTo("prometheus");
        assertThat(rules.stream().map(r -> at(r, "alert")))
                .containsExactly(
                        "GridGatewayConfigReloadRefused",
                        "GridGatewayClusterNotAdmitting",
                        "GridGatewayCachedTokensOverPredicted",
                        "GridGatewayUpstreamErrorRate");
        assertThat(rules).allSatisfy(r -> assertThat((String) at(r, "expr")).contains("namespace=\"inference\""));
        assertThat((String) at(rules.get(1), "expr"))
                .isEqualTo("max by (namespace, cluster) (grid_cluster_admitted{namespace=\"inference\"}) == 0");
    }

    @Test
    void dashboardConfigMap_holdsTheDashboard_labelledForTheGrafanaSidecar() throws IOException {
        Map<String, Object> configMap = CiRenders.of("extensions").ofKind("ConfigMap").stream()
                .filter(c -> at(c, "metadata", "name").equals(Chart.RELEASE + "-dashboard"))
                .findFirst()
                .orElseThrow();
        String dashboard = Files.readString(DeployPaths.repository().resolve("etc/dashboards/grid-gateway.json"));

        assertThat(at(configMap, "metadata", "labels", "grafana_dashboard")).isEqualTo("1");
        assertThat(((String) at(configMap, "data", "grid-gateway.json")).strip())
                .isEqualTo(dashboard.strip());
    }

    @Test
    void chartsDashboardCopy_isTheDashboard() throws IOException {
        // Helm reads files inside the chart only; the copy must not drift from etc/dashboards.
        assertThat(DeployPaths.chart().resolve("dashboards/grid-gateway.json"))
                .hasSameTextualContentAs(DeployPaths.repository().resolve("etc/dashboards/grid-gateway.json"));
    }

    @Test
    void chart_declaresTheKubernetesVersionsItNeeds(@TempDir Path unused) throws IOException {
        assertThat(Files.readString(DeployPaths.chart().resolve("Chart.yaml"))).contains("kubeVersion: \">=1.27.0-0\"");
    }
}
