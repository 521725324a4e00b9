package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.MetricsSource;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Renders a loaded config as YAML with every default filled in, under the key names of docs/design.md §7, so that an
 * operator sees exactly what the gateway runs with ({@code --check-config}). Loading the text again gives an equal
 * config. The tag key file and the TLS files appear as their paths, never their content; optional keys with no value
 * ({@code max_queue_depth}, {@code tag_key_path}, the TLS blocks and their optional files) are left out.
 *
 * <p>Stateless and thread-safe.
 */
public final class EffectiveConfig {
    private EffectiveConfig() {}

    /** The effective config of {@code snapshot}, as YAML. */
    public static String yaml(GatewaySnapshot snapshot) {
        requireNonNull(snapshot, "snapshot");
        GatewayConfig config = snapshot.config();
        Map<String, Object> root = new LinkedHashMap<>();
        TransportSecurity tls = config.tls();
        Map<String, Object> server = server(config.server());
        tls.server().ifPresent(t -> server.put("tls", TlsYaml.listener(t)));
        tls.admin().ifPresent(t -> server.put("admin_tls", TlsYaml.listener(t)));
        root.put("server", server);
        root.put("gateway", gateway(config.gateway(), config.upstream(), tls));
        root.put("sites", sites(config.grid().clusters(), tls));
        root.put("plugins", Map.of("grid_site_route", route(config.load(), config.prefixAffinity(), config.sharing())));
        // Always printed, so that an operator sees whether the development-only TLS shortcut is on.
        root.put("development", Map.of("allow_insecure_tls", tls.allowInsecure()));
        root.put("tracing", tracing(config.tracing()));
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setIndicatorIndent(2);
        options.setIndentWithIndicator(true);
        options.setSplitLines(false);
        return new Yaml(options).dump(root);
    }

    /** The tracing block; {@code otlp_endpoint} only when set, with the traces path it was given. */
    private static Map<String, Object> tracing(TracingSettings tracing) {
        Map<String, Object> block = new LinkedHashMap<>();
        tracing.otlpEndpoint().ifPresent(url -> block.put("otlp_endpoint", url.toString()));
        block.put("service_name", tracing.serviceName());
        block.put("sample_ratio", tracing.sampleRatio());
        return block;
    }

    private static Map<String, Object> server(ServerSettings server) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("port", server.port());
        block.put("admin_port", server.adminPort());
        block.put("host", server.binding().host());
        block.put("admin_host", server.binding().adminHost());
        block.put("max_body_bytes", server.maxBodyBytes());
        block.put("max_inflight_body_bytes", server.maxInflightBodyBytes());
        int connections = server.binding().maxConnections();
        block.put("max_connections", connections == ServerSettings.Binding.AUTO ? "auto" : connections);
        block.put("header_timeout_ms", server.headerTimeout().toMillis());
        block.put("body_timeout_ms", server.bodyTimeout().toMillis());
        block.put("send_timeout_ms", server.sendTimeout().toMillis());
        block.put("shutdown_grace_ms", server.shutdownGrace().toMillis());
        block.put("shutdown_delay_ms", server.shutdownDelay().toMillis());
        Map<String, Object> explain = new LinkedHashMap<>();
        explain.put("enabled", server.routeExplain().enabled());
        server.routeExplain().tokenFile().ifPresent(file -> explain.put("token_file", file.toString()));
        block.put("route_explain", explain);
        return block;
    }

    private static Map<String, Object> gateway(
            GatewaySettings gateway, UpstreamSettings upstream, TransportSecurity tls) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("site", gateway.site().value());
        block.put("role", gateway.role().name().toLowerCase(Locale.ROOT));
        block.put("allowed_paths", gateway.allowedPaths());
        gateway.tagKeyPath().ifPresent(path -> block.put("tag_key_path", path.toString()));
        block.put("config_poll_ms", gateway.configPollInterval().toMillis());
        block.put("access_log", gateway.accessLog().word());
        Map<String, Object> up = new LinkedHashMap<>();
        up.put("connect_timeout_ms", upstream.connectTimeout().toMillis());
        up.put("first_byte_timeout_ms", upstream.firstByteTimeout().toMillis());
        up.put("idle_timeout_ms", upstream.idleTimeout().toMillis());
        up.put("max_connections_per_cluster", upstream.maxConnectionsPerCluster());
        upstream.maxConnectionAge().ifPresent(age -> up.put("max_connection_age_ms", age.toMillis()));
        tls.upstreamDefault().ifPresent(t -> up.put("tls", TlsYaml.upstream(t)));
        block.put("upstream", up);
        return block;
    }

    private static List<Object> sites(List<BackendCluster> clusters, TransportSecurity tls) {
        Map<SiteName, List<Object>> bySite = new LinkedHashMap<>();
        for (BackendCluster cluster : clusters) {
            bySite.computeIfAbsent(cluster.id().site(), site -> new ArrayList<>())
                    .add(cluster(cluster, tls));
        }
        List<Object> sites = new ArrayList<>();
        bySite.forEach((site, list) -> {
            Map<String, Object> block = new LinkedHashMap<>();
            block.put("name", site.value());
            block.put("clusters", list);
            sites.add(block);
        });
        return sites;
    }

    private static Map<String, Object> cluster(BackendCluster cluster, TransportSecurity tls) {
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("name", cluster.id().name());
        block.put("url", cluster.url().toString());
        // Sorted: the cluster holds its models as a set, and the output must not change from one run to the next.
        block.put("models", cluster.models().stream().sorted().toList());
        switch (cluster.metrics()) {
            case MetricsSource.Urls one
            when one.urls().size() == 1 ->
                block.put("metrics_url", one.urls().getFirst().toString());
            case MetricsSource.Urls pods ->
                block.put(
                        "metrics_urls", pods.urls().stream().map(URI::toString).toList());
            case MetricsSource.Dns dns -> block.put("metrics_dns", dns.url().toString());
        }
        cluster.maxQueueDepth().ifPresent(depth -> block.put("max_queue_depth", depth));
        cluster.maxRunning().ifPresent(slots -> block.put("max_running", slots));
        block.put("draining", cluster.draining());
        UpstreamTls own = tls.clusters().get(cluster.id());
        if (own != null) {
            block.put("tls", TlsYaml.upstream(own));
        }
        return block;
    }

    private static Map<String, Object> route(
            LoadSettings load, PrefixAffinitySettings prefixAffinity, SharingSettings sharing) {
        Map<String, Object> loadBlock = new LinkedHashMap<>();
        loadBlock.put("poll_interval_ms", load.pollInterval().toMillis());
        loadBlock.put("window_secs", load.window().toSeconds());
        loadBlock.put("queue_metric", load.queueMetric());
        loadBlock.put("count_sent_since_scrape", load.countSentSinceScrape());
        loadBlock.put("order_by", load.orderBy().label());
        loadBlock.put("dns_refresh_secs", load.dnsRefresh().toSeconds());
        PrefixAffinitySettings.Calibrated auto = prefixAffinity.auto();
        Map<String, Object> affinity = new LinkedHashMap<>();
        affinity.put("capacity", auto.capacity() ? YamlBlock.AUTO : prefixAffinity.capacity());
        affinity.put("ttl_secs", prefixAffinity.ttl().toSeconds());
        affinity.put(
                "prefill_tokens_per_second",
                auto.prefillTokensPerSecond() ? YamlBlock.AUTO : number(prefixAffinity.prefillTokensPerSecond()));
        affinity.put(
                "queued_request_seconds",
                auto.queuedRequestSeconds() ? YamlBlock.AUTO : number(prefixAffinity.queuedRequestSeconds()));
        affinity.put("learn_from_usage", prefixAffinity.learnFromUsage());
        Map<String, Object> share = new LinkedHashMap<>();
        sharing.redisUrl().ifPresent(url -> share.put("redis_url", url.toString()));
        share.put("stream", sharing.stream());
        sharing.passwordFile().ifPresent(path -> share.put("password_file", path.toString()));
        share.put("warm_start_ms", sharing.warmStart().toMillis());
        share.put("share_backlog", sharing.shareBacklog());
        share.put("confirm_wait_ms", sharing.confirmWait().toMillis());
        affinity.put("sharing", share);
        Map<String, Object> block = new LinkedHashMap<>();
        block.put("load", loadBlock);
        block.put("prefix_affinity", affinity);
        return block;
    }

    /** A whole number as an integer ({@code 10000}, not {@code 10000.0}); any other as a float. */
    private static Object number(double value) {
        boolean whole = value == Math.rint(value) && Math.abs(value) < 0x1p53;
        return whole ? (Object) (long) value : (Object) value;
    }
}
