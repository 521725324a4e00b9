package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.LoadRules;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Role;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.select.LoadOrder;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    private static final String FULL = """
            server:
              port: 0
              admin_port: 0
              host: 127.0.0.1
              admin_host: "::1"
              max_body_bytes: 1048576
              max_inflight_body_bytes: 8388608
              max_connections: 100
              header_timeout_ms: 5000
              body_timeout_ms: 30000
              send_timeout_ms: 45000
              shutdown_grace_ms: 7000
              shutdown_delay_ms: 4000
            gateway:
              site: west
              role: provider
              allowed_paths: [/v1/messages]
              config_poll_ms: 250
              access_log: "off"
              upstream:
                connect_timeout_ms: 100
                first_byte_timeout_ms: 200
                idle_timeout_ms: 300
                max_connections_per_cluster: 8
                max_connection_age_ms: 3600000
            sites:
              - name: east
                clusters:
                  - name: east-a
                    url: https://engine.east.example:8443/pool/
                    models: [m1, m2]
                    metrics_url: http://engine.east.example:9000/stats
                    max_queue_depth: 64
                    draining: true
              - name: west
                clusters:
                  - {name: west-a, url: "http://10.0.0.7", models: [m1]}
            plugins:
              grid_site_route:
                load: {poll_interval_ms: 500, window_secs: 5, queue_metric: "queue_depth"}
                prefix_affinity:
                  capacity: 1024
                  ttl_secs: 60
                  prefill_tokens_per_second: 2500.5
                  queued_request_seconds: 0.5
            """;

    @TempDir
    Path dir;

    @Test
    void load_minimalConfig_fillsSpecDefaults() {
        GatewayConfig config =
                ConfigLoader.load(write(dir, "config.yaml", MINIMAL)).config();

        assertThat(config.server()).isEqualTo(new ServerSettings(8080, 9090, 33_554_432));
        assertThat(config.gateway())
                .isEqualTo(new GatewaySettings(
                        new SiteName("east"),
                        Role.CONSUMER,
                        List.of("/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/responses"),
                        Optional.empty(),
                        Duration.ofMillis(1_000)));
        assertThat(config.upstream()).isEqualTo(UpstreamSettings.defaults());
        assertThat(config.load())
                .isEqualTo(
                        new LoadSettings(Duration.ofMillis(1_000), Duration.ofSeconds(2), "vllm:num_requests_waiting"));
        assertThat(config.prefixAffinity())
                .isEqualTo(new PrefixAffinitySettings(16_384, Duration.ofSeconds(600), 10_000, 2));
        assertThat(config.grid().localSite()).isEqualTo(new SiteName("east"));
        // metrics_url is filled at load, so later code never applies the default again.
        assertThat(config.grid().clusters())
                .containsExactly(new BackendCluster(
                        new ClusterId(new SiteName("east"), "east-a"),
                        URI.create("http://127.0.0.1:8001"),
                        Set.of("demo-model"),
                        Optional.of(URI.create("http://127.0.0.1:8001/metrics")),
                        OptionalInt.empty(),
                        false));
    }

    @Test
    void load_autoAndUsageKeys_measuredFlagsSetAndSeedDefaultsAsFallback() {
        String yaml = MINIMAL + """
                plugins:
                  grid_site_route:
                    load: {count_sent_since_scrape: true}
                    prefix_affinity:
                      capacity: auto
                      prefill_tokens_per_second: auto
                      queued_request_seconds: 3
                      learn_from_usage: true
                """;

        GatewayConfig config =
                ConfigLoader.load(write(dir, "config.yaml", yaml)).config();

        assertThat(config.load().countSentSinceScrape()).isTrue();
        // Under auto, the seed's default is what an unmeasured cluster uses; a number stays as written.
        assertThat(config.prefixAffinity())
                .isEqualTo(new PrefixAffinitySettings(16_384, Duration.ofSeconds(600), 10_000, 3)
                        .with(new PrefixAffinitySettings.Calibrated(true, true, false), true));
    }

    @Test
    void load_orderByExpectedWait_readIntoTheRouterRules() {
        String yaml = MINIMAL + """
                plugins:
                  grid_site_route:
                    load: {count_sent_since_scrape: true, order_by: expected_wait}
                """;

        GatewayConfig config =
                ConfigLoader.load(write(dir, "config.yaml", yaml)).config();

        assertThat(config.load().rules()).isEqualTo(new LoadRules(true, LoadOrder.EXPECTED_WAIT));
    }

    @Test
    void load_newKeysAbsent_seedBehaviour() {
        GatewayConfig config =
                ConfigLoader.load(write(dir, "config.yaml", MINIMAL)).config();

        assertThat(config.load().countSentSinceScrape()).isFalse();
        assertThat(config.load().orderBy()).isEqualTo(LoadOrder.DEPTH);
        assertThat(config.prefixAffinity().auto()).isEqualTo(PrefixAffinitySettings.Calibrated.NONE);
        assertThat(config.prefixAffinity().learnFromUsage()).isFalse();
    }

    @Test
    void load_everyKeyWritten_readsEachIntoItsRecord() {
        GatewayConfig config =
                ConfigLoader.load(write(dir, "config.yaml", FULL)).config();

        assertThat(config.server())
                .isEqualTo(new ServerSettings(
                        0,
                        0,
                        1_048_576,
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(45),
                        Duration.ofSeconds(7),
                        Duration.ofSeconds(4),
                        8_388_608,
                        new ServerSettings.Binding("127.0.0.1", "::1", 100),
                        RouteExplainSettings.DISABLED));
        assertThat(config.gateway())
                .isEqualTo(new GatewaySettings(
                        new SiteName("west"),
                        Role.PROVIDER,
                        List.of("/v1/messages"),
                        Optional.empty(),
                        Duration.ofMillis(250),
                        GatewaySettings.AccessLogFormat.OFF));
        assertThat(config.upstream())
                .isEqualTo(new UpstreamSettings(
                        Duration.ofMillis(100),
                        Duration.ofMillis(200),
                        Duration.ofMillis(300),
                        8,
                        Optional.of(Duration.ofMillis(3_600_000))));
        assertThat(config.load())
                .isEqualTo(new LoadSettings(Duration.ofMillis(500), Duration.ofSeconds(5), "queue_depth"));
        assertThat(config.prefixAffinity())
                .isEqualTo(new PrefixAffinitySettings(1024, Duration.ofSeconds(60), 2500.5, 0.5));
        assertThat(config.grid().localSite()).isEqualTo(new SiteName("west"));
        assertThat(config.grid().clusters())
                .containsExactly(
                        new BackendCluster(
                                new ClusterId(new SiteName("east"), "east-a"),
                                // The trailing slash is dropped: request paths are appended to the URL.
                                URI.create("https://engine.east.example:8443/pool"),
                                Set.of("m1", "m2"),
                                Optional.of(URI.create("http://engine.east.example:9000/stats")),
                                OptionalInt.of(64),
                                true),
                        new BackendCluster(
                                new ClusterId(new SiteName("west"), "west-a"),
                                URI.create("http://10.0.0.7"),
                                Set.of("m1"),
                                Optional.of(URI.create("http://10.0.0.7/metrics")),
                                OptionalInt.empty(),
                                false));
    }

    @Test
    void load_blockWithEveryLineCommentedOut_keepsDefaults() {
        String yaml = MINIMAL + "server:\n  # port: 1\nplugins:\n  grid_site_route:\n    prefix_affinity:\n";

        GatewayConfig config =
                ConfigLoader.load(write(dir, "config.yaml", yaml)).config();

        assertThat(config.server()).isEqualTo(new ServerSettings(8080, 9090, 33_554_432));
        assertThat(config.prefixAffinity()).isEqualTo(PrefixAffinitySettings.defaults());
    }

    @Test
    void load_mergeKeyFromAnchor_copiesTheAnchoredKeys() {
        String yaml = MINIMAL.replace("      - name: east-a", "      - &engine\n        name: east-a")
                + "      - <<: *engine\n        name: east-b\n";

        assertThat(ConfigLoader.load(write(dir, "config.yaml", yaml))
                        .config()
                        .grid()
                        .clusters())
                .extracting(c -> c.id().name() + " " + c.url())
                .containsExactly("east-a http://127.0.0.1:8001", "east-b http://127.0.0.1:8001");
    }

    @Test
    void load_manyProblems_reportsEveryOneInDocumentOrder() {
        String yaml = "server: {port: 70000, admin-port: 1}\n"
                + MINIMAL.replace("http://127.0.0.1:8001", "\"ftp://x\"").replace("[demo-model]", "[]");

        assertThat(TestConfigs.problems(dir, yaml))
                .containsExactly(
                        "server.admin-port: unknown key (expected: admin_port; keys are snake_case)",
                        "server.port: 70000 (expected: 0..65535)",
                        "sites[0].clusters[0].url: \"ftp://x\" (expected: an http or https URL)",
                        "sites[0].clusters[0].models: a list (expected: a non-empty list of model names)");
    }

    @Test
    void load_emptyFile_refused() {
        Path file = write(dir, "config.yaml", "");

        assertThat(TestConfigs.problems(file))
                .containsExactly(file + ": empty (expected: a YAML mapping with at least gateway and sites)");
    }

    @Test
    void load_onlyComments_refusedAsEmpty() {
        Path file = write(dir, "config.yaml", "# nothing yet\n");

        assertThat(TestConfigs.problems(file))
                .containsExactly(file + ": empty (expected: a YAML mapping with at least gateway and sites)");
    }

    @Test
    void load_notYaml_refusedWithLineAndColumn() {
        Path file = write(dir, "config.yaml", "gateway:\n  site: [east\n");

        assertThat(TestConfigs.problems(file)).singleElement().asString().startsWith(file + ": not valid YAML (line ");
    }

    @Test
    void load_keyWrittenTwice_refused() {
        Path file = write(dir, "config.yaml", "server:\n  port: 1\n  port: 2\n" + MINIMAL);

        assertThat(TestConfigs.problems(file))
                .singleElement()
                .asString()
                .startsWith(file + ": not valid YAML (line ")
                .endsWith("found duplicate key port)");
    }

    @Test
    void load_twoDocuments_refused() {
        Path file = write(dir, "config.yaml", MINIMAL + "---\n" + MINIMAL);

        assertThat(TestConfigs.problems(file)).singleElement().asString().startsWith(file + ": not valid YAML (");
    }

    @Test
    void load_binaryFile_refusedAsNotUtf8() throws IOException {
        Path file = Files.write(dir.resolve("config.yaml"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, 2});

        assertThat(TestConfigs.problems(file))
                .containsExactly(file + ": not UTF-8 text (expected: a YAML mapping with at least gateway and sites)");
    }

    @Test
    void load_listDocument_refused() {
        Path file = write(dir, "config.yaml", "- gateway\n- sites\n");

        assertThat(TestConfigs.problems(file))
                .containsExactly(file + ": a list (expected: a YAML mapping with at least gateway and sites)");
    }

    @Test
    void load_missingFile_refused() {
        Path file = dir.resolve("absent.yaml");

        assertThat(TestConfigs.problems(file)).containsExactly(file + ": cannot read the config file (no such file)");
    }

    @Test
    void load_directory_refused() {
        assertThat(TestConfigs.problems(dir))
                .singleElement()
                .asString()
                .startsWith(dir + ": cannot read the config file (");
    }

    @Test
    void load_fileOverOneMebibyte_refused() {
        Path file = write(dir, "config.yaml", MINIMAL + "#".repeat(ConfigFiles.CONFIG_LIMIT));

        assertThat(TestConfigs.problems(file))
                .containsExactly(file + ": cannot read the config file (larger than 1048576 bytes)");
    }
}
