package grid.gateway.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every rendered manifest is valid against the Kubernetes 1.27 OpenAPI schemas bundled in the npm package
 * {@code kubernetes-models}, and the Prometheus Operator's kinds (ServiceMonitor, PrometheusRule) against the CRD
 * schemas in {@code @kubernetes-models/prometheus-operator}, checked offline by {@code validate-manifests.mjs}.
 */
class ManifestSchemaTest {
    @Test
    void ciRenders_matchTheKubernetesSchemas() {
        List<Path> files = CiRenders.all().stream().map(CiRenders::file).toList();
        int documents =
                CiRenders.all().stream().mapToInt(r -> r.documents().size()).sum();

        NodeScript run = NodeScript.validateManifests(files);

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.lines()).filteredOn(l -> l.startsWith("FAIL")).isEmpty();
        // Every kind the chart renders has a bundled schema; a skip would be a typo in apiVersion.
        assertThat(run.lines()).filteredOn(l -> l.startsWith("SKIP")).isEmpty();
        assertThat(run.lines())
                .filteredOn(l -> l.startsWith("OK "))
                .anyMatch(l -> l.contains(" networking.k8s.io/v1 NetworkPolicy "))
                .anyMatch(l -> l.contains(" monitoring.coreos.com/v1 PrometheusRule "))
                .anyMatch(l -> l.contains(" monitoring.coreos.com/v1 ServiceMonitor "));
        assertThat(run.lines())
                .filteredOn(l -> l.startsWith("OK ") || l.startsWith("SKIP"))
                .hasSize(documents);
    }

    @Test
    void brokenPrometheusRule_failsValidation(@TempDir Path scratch) throws IOException {
        // Proves the CRD schema is applied: a duration Prometheus would not parse.
        assertThat(failure(scratch, "extensions", "for: 10m", "for: ten minutes"))
                .contains("PrometheusRule")
                .contains("/for");
    }

    @Test
    void brokenNetworkPolicy_failsValidation(@TempDir Path scratch) throws IOException {
        assertThat(failure(scratch, "extensions", "- Egress", "- Outbound")).contains("NetworkPolicy");
    }

    @Test
    void brokenManifest_failsValidation(@TempDir Path scratch) throws IOException {
        // Proves the check can fail: the defaults' Deployment with a port name where a number belongs.
        assertThat(failure(scratch, "defaults", "containerPort: 9090", "containerPort: admin"))
                .contains("Deployment")
                .contains("containerPort");
    }

    /** Validates render {@code name} with {@code from} replaced by {@code to}: exit code 1 and its one FAIL line. */
    private static String failure(Path scratch, String name, String from, String to) throws IOException {
        String render = CiRenders.of(name).text();
        assertThat(render).contains(from);
        String text = render.replace(from, to);
        Path file = scratch.resolve("broken-" + name + ".yaml");
        Files.writeString(file, text);

        NodeScript run = NodeScript.validateManifests(List.of(file));

        assertThat(run.exitCode()).isEqualTo(1);
        List<String> failures =
                run.lines().stream().filter(l -> l.startsWith("FAIL")).toList();
        assertThat(failures).hasSize(1);
        return failures.getFirst();
    }
}
