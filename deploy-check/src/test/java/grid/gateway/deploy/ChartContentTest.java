package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static grid.gateway.deploy.Rendered.named;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the chart renders for each ci values file. */
class ChartContentTest {
    private static final String FULLNAME = Chart.RELEASE;

    @Test
    void defaults_renderTheBaseObjectsOnly() {
        assertThat(CiRenders.of("defaults").kinds())
                .containsExactlyInAnyOrder(
                        "ServiceAccount", "ConfigMap", "Service", "Service", "Deployment", "PodDisruptionBudget");
    }

    @Test
    void defaults_renderNoPrefixAffinityBlock() {
        Rendered rendered = CiRenders.of("defaults");

        // The operator writes no prefix_affinity block, so the plugin's defaults apply (seed, Settings).
        assertThat(rendered.configYaml()).doesNotContain("prefix_affinity");
        assertThat(at(rendered.config(), "plugins", "grid_site_route"))
                .isEqualTo(Map.of(
                        "load",
                        Map.of(
                                "poll_interval_ms",
                                1000,
                                "window_secs",
                                2,
                                "queue_metric",
                                "vllm:num_requests_waiting")));
    }

    @Test
    void prefixAffinity_rendersExactlyIntoThePluginBlock() {
        Map<String, Object> config = CiRenders.of("prefix-affinity").config();

        assertThat(at(config, "plugins", "grid_site_route", "prefix_affinity"))
                .isEqualTo(Map.of(
                        "capacity", 32768,
                        "ttl_secs", 1200,
                        "prefill_tokens_per_second", 12500.5,
                        "queued_request_seconds", 3));
    }

    @Test
    void twoSiteConsumer_rendersEverySiteAndClusterInSnakeCase() {
        Map<String, Object> config = CiRenders.of("two-site-consumer").config();

        assertThat(at(config, "gateway", "role")).isEqualTo("consumer");
        assertThat((List<?>) at(config, "sites")).hasSize(2);
        assertThat(at(config, "sites", 0, "clusters", 0))
                .isEqualTo(Map.of(
                        "name",
                        "east-a",
                        "url",
                        "http://vllm-east-a.inference.svc.cluster.local:8000",
                        "models",
                        List.of("llama-3.1-8b", "qwen-2.5-7b"),
                        "max_queue_depth",
                        64,
                        "max_running",
                        512));
        assertThat(at(config, "sites", 0, "clusters", 1))
                .isEqualTo(Map.of(
                        "name", "east-b",
                        "url", "http://vllm-east-b.inference.svc.cluster.local:8000",
                        "models", List.of("llama-3.1-8b"),
                        "metrics_url", "http://vllm-east-b-metrics.inference.svc.cluster.local:9400/metrics",
                        "draining", true));
        assertThat(at(config, "sites", 1, "name")).isEqualTo("west");
        assertThat(at(config, "plugins", "grid_site_route", "load", "poll_interval_ms"))
                .isEqualTo(500);
        assertThat(at(CiRenders.of("two-site-consumer").only("Deployment"), "spec", "replicas"))
                .isEqualTo(3);
    }

    @Test
    void provider_rendersRoleAndExactAllowedPaths() {
        Map<String, Object> config = CiRenders.of("provider").config();

        assertThat(at(config, "gateway", "site")).isEqualTo("west");
        assertThat(at(config, "gateway", "role")).isEqualTo("provider");
        assertThat(at(config, "gateway", "allowed_paths")).isEqualTo(List.of("/v1/chat/completions", "/v1/messages"));
    }

    @Test
    void defaults_renderNoAllowedPathsSoTheGatewayDefaultApplies() {
        assertThat(Values.map(at(CiRenders.of("defaults").config(), "gateway"))).doesNotContainKey("allowed_paths");
    }

    @Test
    void everyRender_probesTheAdminPort() {
        for (Rendered rendered : CiRenders.all()) {
            Map<String, Object> container = rendered.container();
            Object adminPort = at(rendered.config(), "server", "admin_port");

            // With server.admin_tls the probes speak HTTPS (kubelet checks no certificate).
            boolean https = Values.map(at(rendered.config(), "server")).containsKey("admin_tls");
            assertThat(at(container, "livenessProbe", "httpGet"))
                    .as(rendered.name())
                    .isEqualTo(probe("/health/live", https));
            assertThat(at(container, "readinessProbe", "httpGet"))
                    .as(rendered.name())
                    .isEqualTo(probe("/health/ready", https));
            assertThat(at(named(container.get("ports"), "admin"), "containerPort"))
                    .as(rendered.name())
                    .isEqualTo(adminPort);
            assertThat(at(named(container.get("ports"), "http"), "containerPort"))
                    .as(rendered.name())
                    .isEqualTo(at(rendered.config(), "server", "port"));
        }
    }

    private static Map<String, Object> probe(String path, boolean https) {
        return https ? Map.of("path", path, "port", "admin", "scheme", "HTTPS") : Map.of("path", path, "port", "admin");
    }

    @Test
    void everyRender_rollsOnePodAtATimeWithoutLosingReadyReplicas() {
        for (Rendered rendered : CiRenders.all()) {
            assertThat(at(rendered.only("Deployment"), "spec", "strategy"))
                    .as(rendered.name())
                    .isEqualTo(Map.of(
                            "type", "RollingUpdate", "rollingUpdate", Map.of("maxUnavailable", 0, "maxSurge", 1)));
        }
    }

    @Test
    void everyRender_mountsTheConfigMapAsADirectoryAtTheImagesConfigPath() {
        for (Rendered rendered : CiRenders.all()) {
            Map<String, Object> container = rendered.container();
            Map<String, Object> pod = Values.map(at(rendered.only("Deployment"), "spec", "template", "spec"));

            assertThat(at(named(container.get("env"), "GRID_GATEWAY_CONFIG"), "value"))
                    .isEqualTo("/etc/grid-gateway/config.yaml");
            assertThat(named(container.get("volumeMounts"), "config"))
                    .isEqualTo(Map.of("name", "config", "mountPath", "/etc/grid-gateway", "readOnly", true));
            assertThat(at(named(pod.get("volumes"), "config"), "configMap", "name"))
                    .isEqualTo(FULLNAME);
            assertThat(at(rendered.configMap(), "metadata", "name")).isEqualTo(FULLNAME);
            // subPath mounts never see ConfigMap or Secret updates, so live reload and key rotation would stop.
            assertThat((List<?>) container.get("volumeMounts"))
                    .as(rendered.name())
                    .allSatisfy(mount -> assertThat(Values.map(mount)).doesNotContainKey("subPath"));
        }
    }

    @Test
    void existingSecret_isMountedAndNoSecretIsCreated() {
        Rendered rendered = CiRenders.of("existing-secret");
        Map<String, Object> pod = Values.map(at(rendered.only("Deployment"), "spec", "template", "spec"));

        assertThat(rendered.ofKind("Secret")).isEmpty();
        assertThat(at(named(pod.get("volumes"), "tag-key"), "secret", "secretName"))
                .isEqualTo("grid-tag-key");
        assertThat(at(named(rendered.container().get("volumeMounts"), "tag-key"), "mountPath"))
                .isEqualTo("/var/run/grid/tag-key");
        assertThat(at(rendered.config(), "gateway", "tag_key_path")).isEqualTo("/var/run/grid/tag-key/keys");
    }

    @Test
    void createdSecret_holdsTheValueUnderTheKeyTheConfigNames() {
        Rendered rendered = CiRenders.of("created-secret");
        Map<String, Object> secret = rendered.only("Secret");
        Map<String, Object> pod = Values.map(at(rendered.only("Deployment"), "spec", "template", "spec"));
        String encoded = (String) at(secret, "data", "tag-keys");

        assertThat(new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8))
                .isEqualTo("ci-only-signing-key-0123456789abcdef\nci-only-previous-key-0123456789abcdef\n");
        assertThat(at(named(pod.get("volumes"), "tag-key"), "secret", "secretName"))
                .isEqualTo(at(secret, "metadata", "name"));
        assertThat(at(rendered.config(), "gateway", "tag_key_path")).isEqualTo("/var/run/grid/tag-key/tag-keys");
    }

    @Test
    void defaults_withoutKeyRenderNoKeyPathNorKeyVolume() {
        Rendered rendered = CiRenders.of("defaults");

        assertThat(Values.map(at(rendered.config(), "gateway"))).doesNotContainKey("tag_key_path");
        assertThat(rendered.text()).doesNotContain("tag-key");
    }

    @Test
    void everyRender_annotatesThePodForPrometheusOnTheAdminPort() {
        for (Rendered rendered : CiRenders.all()) {
            Object annotations = at(rendered.only("Deployment"), "spec", "template", "metadata", "annotations");

            assertThat(Values.map(annotations))
                    .as(rendered.name())
                    .containsEntry("prometheus.io/scrape", "true")
                    .containsEntry("prometheus.io/path", "/metrics")
                    .containsEntry("prometheus.io/port", String.valueOf(at(rendered.config(), "server", "admin_port")));
        }
    }

    @Test
    void scaling_hpaOwnsTheReplicaCountAndServiceMonitorScrapesTheAdminService() {
        Rendered rendered = CiRenders.of("scaling-monitoring");
        Map<String, Object> monitor = rendered.only("ServiceMonitor");
        Map<String, Object> admin = rendered.ofKind("Service").stream()
                .filter(s -> at(s, "metadata", "name").equals(FULLNAME + "-admin"))
                .findFirst()
                .orElseThrow();

        assertThat(Values.map(at(rendered.only("Deployment"), "spec"))).doesNotContainKey("replicas");
        assertThat(at(rendered.only("HorizontalPodAutoscaler"), "spec", "minReplicas"))
                .isEqualTo(3);
        assertThat(at(monitor, "spec", "endpoints", 0, "port")).isEqualTo("admin");
        assertThat(at(monitor, "spec", "endpoints", 0, "path")).isEqualTo("/metrics");
        assertThat(Values.map(at(admin, "metadata", "labels")))
                .containsAllEntriesOf(Values.map(at(monitor, "spec", "selector", "matchLabels")));
        assertThat(at(admin, "spec", "ports", 0, "port")).isEqualTo(8081);
        assertThat(at(rendered.only("PodDisruptionBudget"), "spec", "maxUnavailable"))
                .isEqualTo(2);
    }
}
