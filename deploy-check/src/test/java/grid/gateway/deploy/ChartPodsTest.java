package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import grid.gateway.app.config.ConfigCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Clusters of many pods in the chart ({@code ci/pods-values.yaml}): {@code metricsUrls}, {@code metricsDns} and
 * {@code load.dnsRefreshSecs} render as the gateway's keys and pass its check, the NetworkPolicy opens every pod's
 * port, and the schema refuses two of the three ways to name the pods.
 */
class ChartPodsTest {

    @Test
    void pods_renderTheGatewaysKeys_andPassItsCheck(@TempDir Path scratch) {
        Rendered rendered = CiRenders.of("pods");
        Map<String, Object> config = rendered.config();

        assertThat(at(config, "sites", 0, "clusters", 0, "metrics_urls"))
                .isEqualTo(List.of(
                        "http://vllm-east-a-0.vllm-east-a-pods:9400/metrics",
                        "http://vllm-east-a-1.vllm-east-a-pods:9401/metrics"));
        assertThat(at(config, "sites", 0, "clusters", 1, "metrics_dns"))
                .isEqualTo("http://vllm-east-b-pods.inference.svc.cluster.local:9500/metrics");
        assertThat(at(config, "plugins", "grid_site_route", "load", "dns_refresh_secs"))
                .isEqualTo(15);

        CheckableConfig.Result result = CheckableConfig.check(rendered, scratch);
        assertThat(result.exitCode()).as(result.err()).isEqualTo(ConfigCheck.VALID);
        Map<String, Object> effective = Values.map(new Yaml().load(result.out()));
        assertThat(at(effective, "plugins", "grid_site_route", "load", "dns_refresh_secs"))
                .isEqualTo(15);
        assertThat(at(effective, "sites", 0, "clusters", 1, "metrics_dns"))
                .isEqualTo("http://vllm-east-b-pods.inference.svc.cluster.local:9500/metrics");
    }

    @Test
    void networkPolicy_opensEveryPodsPort() {
        Map<String, Object> policy = CiRenders.of("pods").only("NetworkPolicy");

        List<?> rules = (List<?>) at(policy, "spec", "egress");
        assertThat(rules.stream()
                        .flatMap(rule -> ((List<?>) at(rule, "ports")).stream())
                        .map(port -> at(port, "port"))
                        .toList())
                .contains(8000, 9400, 9401, 9500);
    }

    @Test
    void schema_refusesTwoWaysToNameThePods(@TempDir Path scratch) throws IOException {
        Path values = scratch.resolve("values.yaml");
        Files.writeString(values, """
                gridServing:
                  sites:
                    - name: east
                      clusters:
                        - name: east-a
                          url: http://vllm-east-a:8000
                          models: [demo-model]
                          metricsUrl: http://vllm-east-a:8000/metrics
                          metricsDns: http://vllm-east-a-pods:8000/metrics
                """);

        Throwable thrown = catchThrowable(() -> Chart.repository().template(values));

        assertThat(thrown).as("helm template refused the values").isNotNull();
        assertThat(thrown.getMessage()).contains("/gridServing/sites/0/clusters/0");
    }
}
