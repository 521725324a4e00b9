package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.KEY_ONE;
import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EffectiveConfigTest {
    // Every value differs from its default, and the strings need YAML quoting.
    private static final String UNUSUAL = """
            server: {port: 0, admin_port: 0, max_body_bytes: 1024}
            gateway:
              site: west
              role: provider
              allowed_paths: [/v1/messages, "/v1/x:y"]
              tag_key_path: %s
              config_poll_ms: 5
              access_log: "off"
              upstream: {connect_timeout_ms: 1, first_byte_timeout_ms: 2, idle_timeout_ms: 3, max_connections_per_cluster: 4}
            sites:
              - name: east
                clusters:
                  - {name: "a: b", url: "https://h:8443/p/", models: ["yes", "1", "null", "x y"], max_queue_depth: 3}
                  - {name: "#2", url: "http://h2", models: [m], metrics_url: "http://h2:9/m", draining: true}
              - name: west
                clusters: [{name: w, url: "http://w", models: [m]}]
            plugins:
              grid_site_route:
                load: {poll_interval_ms: 10, window_secs: 1, queue_metric: "q:depth"}
                prefix_affinity: {capacity: 7, ttl_secs: 9223372036, prefill_tokens_per_second: 0.00001,
                                  queued_request_seconds: 12345.678}
            """;

    @TempDir
    Path dir;

    @Test
    void yaml_minimalConfig_showsEveryDefaultUnderTheSpecKeys() {
        String yaml = EffectiveConfig.yaml(ConfigLoader.load(write(dir, "config.yaml", MINIMAL)));

        assertThat(yaml).isEqualTo("""
                        server:
                          port: 8080
                          admin_port: 9090
                          host: 0.0.0.0
                          admin_host: 127.0.0.1
                          max_body_bytes: 33554432
                          max_inflight_body_bytes: 0
                          max_connections: auto
                          header_timeout_ms: 10000
                          body_timeout_ms: 60000
                          send_timeout_ms: 60000
                          shutdown_grace_ms: 30000
                          shutdown_delay_ms: 0
                          route_explain:
                            enabled: false
                        gateway:
                          site: east
                          role: consumer
                          allowed_paths:
                            - /v1/chat/completions
                            - /v1/completions
                            - /v1/messages
                            - /v1/responses
                          config_poll_ms: 1000
                          access_log: json
                          upstream:
                            connect_timeout_ms: 2000
                            first_byte_timeout_ms: 600000
                            idle_timeout_ms: 300000
                            max_connections_per_cluster: 512
                        sites:
                          - name: east
                            clusters:
                              - name: east-a
                                url: http://127.0.0.1:8001
                                models:
                                  - demo-model
                                metrics_url: http://127.0.0.1:8001/metrics
                                draining: false
                        plugins:
                          grid_site_route:
                            load:
                              poll_interval_ms: 1000
                              window_secs: 2
                              queue_metric: vllm:num_requests_waiting
                              count_sent_since_scrape: false
                              order_by: depth
                              dns_refresh_secs: 30
                            prefix_affinity:
                              capacity: 16384
                              ttl_secs: 600
                              prefill_tokens_per_second: 10000
                              queued_request_seconds: 2
                              learn_from_usage: false
                              sharing:
                                stream: grid-prefix-memory
                                warm_start_ms: 5000
                                share_backlog: false
                                confirm_wait_ms: 0
                        development:
                          allow_insecure_tls: false
                        tracing:
                          service_name: grid-gateway
                          sample_ratio: 1.0
                        """);
    }

    @Test
    void yaml_loadedAgain_givesAnEqualConfig() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");
        GatewaySnapshot first = ConfigLoader.load(write(dir, "config.yaml", UNUSUAL.formatted(key)));

        GatewaySnapshot second =
                ConfigLoader.load(write(dir.resolve("again"), "config.yaml", EffectiveConfig.yaml(first)));

        assertSameConfig(second.config(), first.config());
        assertThat(EffectiveConfig.yaml(second)).isEqualTo(EffectiveConfig.yaml(first));
    }

    @Test
    void yaml_autoAndUsageKeys_printedAsWrittenAndLoadedAgainEqual() {
        String written = MINIMAL + """
                plugins:
                  grid_site_route:
                    load: {count_sent_since_scrape: true}
                    prefix_affinity: {capacity: auto, prefill_tokens_per_second: auto, queued_request_seconds: auto,
                                      learn_from_usage: true}
                """;
        GatewaySnapshot first = ConfigLoader.load(write(dir, "config.yaml", written));

        String yaml = EffectiveConfig.yaml(first);
        GatewaySnapshot second = ConfigLoader.load(write(dir.resolve("again"), "config.yaml", yaml));

        assertThat(yaml)
                .contains("count_sent_since_scrape: true")
                .contains("capacity: auto")
                .contains("prefill_tokens_per_second: auto")
                .contains("queued_request_seconds: auto")
                .contains("learn_from_usage: true");
        assertSameConfig(second.config(), first.config());
    }

    @Test
    void yaml_minimalConfigLoadedAgain_givesAnEqualConfig() {
        GatewaySnapshot first = ConfigLoader.load(write(dir, "config.yaml", MINIMAL));

        GatewaySnapshot second =
                ConfigLoader.load(write(dir.resolve("again"), "config.yaml", EffectiveConfig.yaml(first)));

        assertSameConfig(second.config(), first.config());
    }

    @Test
    void yaml_tagKey_showsThePathNeverTheKey() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");

        String yaml = EffectiveConfig.yaml(ConfigLoader.load(write(dir, "config.yaml", UNUSUAL.formatted(key))));

        assertThat(yaml).contains("tag_key_path: " + key).doesNotContain(KEY_ONE);
    }

    /** Field by field: {@code Grid} has no value equality of its own, its clusters (records) do. */
    static void assertSameConfig(GatewayConfig actual, GatewayConfig expected) {
        assertThat(actual.server()).isEqualTo(expected.server());
        assertThat(actual.gateway()).isEqualTo(expected.gateway());
        assertThat(actual.upstream()).isEqualTo(expected.upstream());
        assertThat(actual.load()).isEqualTo(expected.load());
        assertThat(actual.prefixAffinity()).isEqualTo(expected.prefixAffinity());
        assertThat(actual.grid().localSite()).isEqualTo(expected.grid().localSite());
        assertThat(actual.grid().clusters()).isEqualTo(expected.grid().clusters());
    }
}
