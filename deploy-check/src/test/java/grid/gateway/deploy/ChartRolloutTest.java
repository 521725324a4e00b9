package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the chart does at a rollout: the pod template does not change with the chart's version, the gateway's
 * shutdown delay (the preStop window) and drain grace are rendered into its config, and Kubernetes waits for both.
 */
class ChartRolloutTest {
    private static Map<String, Object> deployment(Rendered rendered) {
        return rendered.only("Deployment");
    }

    private static Object startOnlyChecksum(Rendered rendered) {
        return at(deployment(rendered), "spec", "template", "metadata", "annotations", "checksum/start-only-config");
    }

    @Test
    void chartVersionBump_leavesThePodTemplateAlone(@TempDir Path scratch) throws IOException {
        Path bumped = Chart.repository().copyTo(scratch.resolve("chart"));
        Path chartYaml = bumped.resolve("Chart.yaml");
        String text = Files.readString(chartYaml);
        assertThat(text).contains("\nversion: 0.1.0\n");
        Files.writeString(chartYaml, text.replace("\nversion: 0.1.0\n", "\nversion: 0.2.0\n"));
        Path values = DeployPaths.ciValues("extensions");

        Rendered before = Rendered.parse("before", Chart.repository().template(values));
        Rendered after = Rendered.parse("after", new Chart(bumped).template(values));

        // The bump took effect (the Deployment's own labels name the chart version) ...
        assertThat(at(deployment(after), "metadata", "labels", "helm.sh/chart")).isEqualTo("grid-gateway-0.2.0");
        assertThat(at(deployment(before), "metadata", "labels", "helm.sh/chart"))
                .isEqualTo("grid-gateway-0.1.0");
        // ... but the pod template, and so every replica and its prefix memory, stays.
        assertThat(at(deployment(after), "spec", "template")).isEqualTo(at(deployment(before), "spec", "template"));
    }

    @Test
    void everyRender_podTemplateLabelsAreTheSelectorLabelsAndPodLabelsOnly() {
        for (Rendered rendered : CiRenders.all()) {
            Map<String, Object> labels = Values.map(at(deployment(rendered), "spec", "template", "metadata", "labels"));
            Map<String, Object> selector = Values.map(at(deployment(rendered), "spec", "selector", "matchLabels"));
            Map<String, Object> podLabels =
                    rendered.name().equals("extensions") ? Map.of("team", "inference") : Map.of();

            Map<String, Object> expected = new java.util.LinkedHashMap<>(selector);
            expected.putAll(podLabels);
            assertThat(labels).as(rendered.name()).isEqualTo(expected);
        }
    }

    @Test
    void defaults_preStopDelayAndGraceAreRendered_andKubernetesWaitsForBothPlusAMargin() {
        Rendered rendered = CiRenders.of("defaults");

        assertThat(at(rendered.config(), "server", "shutdown_delay_ms")).isEqualTo(10_000);
        assertThat(at(rendered.config(), "server", "shutdown_grace_ms")).isEqualTo(30_000);
        // 10 s + 30 s + 5 s margin.
        assertThat(at(deployment(rendered), "spec", "template", "spec", "terminationGracePeriodSeconds"))
                .isEqualTo(45);
    }

    @Test
    void longGrace_roundsTheSumUpToWholeSeconds() {
        Rendered rendered = CiRenders.of("extensions");

        assertThat(at(rendered.config(), "server", "shutdown_delay_ms")).isEqualTo(2_500);
        assertThat(at(rendered.config(), "server", "shutdown_grace_ms")).isEqualTo(600_000);
        // ceil((2500 + 600000) / 1000) = 603, + 5.
        assertThat(at(deployment(rendered), "spec", "template", "spec", "terminationGracePeriodSeconds"))
                .isEqualTo(608);
    }

    @Test
    void arithmetic_followsEachTerm() {
        Map<String, Object> sets =
                Map.of("server.shutdownDelayMs", 0, "server.shutdownGraceMs", 1, "terminationGraceMarginSeconds", 0);

        Rendered rendered = Rendered.parse("set", Chart.repository().template(DeployPaths.ciValues("defaults"), sets));

        assertThat(at(deployment(rendered), "spec", "template", "spec", "terminationGracePeriodSeconds"))
                .isEqualTo(1);
    }

    @Test
    void shutdownSettings_areStartOnly_soAChangeRollsThePods() {
        Rendered before = CiRenders.of("defaults");
        for (String key : List.of("server.shutdownDelayMs", "server.headerTimeoutMs")) {
            Rendered after = Rendered.parse(
                    key, Chart.repository().template(DeployPaths.ciValues("defaults"), Map.of(key, 12_345)));

            assertThat(startOnlyChecksum(after)).as(key).isNotEqualTo(startOnlyChecksum(before));
        }
    }

    @Test
    void tlsSettings_areStartOnly_soAChangeRollsThePods() {
        // A Secret named in both renders, so that only the setting under test differs (its volume stays the same).
        Map<String, Object> secrets =
                Map.of("tls.server.secretName", "gateway-tls", "tls.upstream.secretName", "engines-ca");
        Rendered before =
                Rendered.parse("secrets", Chart.repository().template(DeployPaths.ciValues("defaults"), secrets));
        for (Map.Entry<String, Object> change : List.<Map.Entry<String, Object>>of(
                Map.entry("tls.server.clientAuth", "required"), // a reload that changes client_auth is refused
                Map.entry("tls.upstream.serverName", "engines.internal"))) { // gateway.upstream.tls, read at start
            Map<String, Object> sets = new java.util.HashMap<>(secrets);
            sets.put(change.getKey(), change.getValue());
            Rendered after = Rendered.parse(
                    change.getKey(), Chart.repository().template(DeployPaths.ciValues("defaults"), sets));

            assertThat(startOnlyChecksum(after)).as(change.getKey()).isNotEqualTo(startOnlyChecksum(before));
        }
    }
}
