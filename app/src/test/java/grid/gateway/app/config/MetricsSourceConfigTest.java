package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.MetricsSource;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a cluster's pods are scraped: {@code metrics_url}, {@code metrics_urls} or {@code metrics_dns}, at most one,
 * each checked; {@code load.dns_refresh_secs}; and the effective config printing what was read.
 */
class MetricsSourceConfigTest {
    private static final String AT = "sites[0].clusters[0].";

    @TempDir
    Path dir;

    private BackendCluster cluster(String lines) {
        GatewaySnapshot snapshot =
                ConfigLoader.load(TestConfigs.write(dir, "config.yaml", TestConfigs.withCluster(lines)));
        return snapshot.config().grid().clusters().getFirst();
    }

    @Test
    void metricsUrls_eachUrlIsAPod() {
        BackendCluster cluster = cluster("metrics_urls: [http://10.0.0.1:8000/metrics, http://10.0.0.2:8000/metrics/]");

        assertThat(cluster.metrics())
                .isEqualTo(new MetricsSource.Urls(List.of(
                        URI.create("http://10.0.0.1:8000/metrics"), URI.create("http://10.0.0.2:8000/metrics"))));
    }

    @Test
    void metricsDns_isTheNameToResolve() {
        BackendCluster cluster = cluster("metrics_dns: http://pods.engines.svc:8000/metrics");

        assertThat(cluster.metrics())
                .isEqualTo(new MetricsSource.Dns(URI.create("http://pods.engines.svc:8000/metrics")));
    }

    @Test
    void noneWritten_isTheDefaultOnePod() {
        assertThat(cluster("draining: false").metrics())
                .isEqualTo(MetricsSource.of(URI.create("http://127.0.0.1:8001/metrics")));
    }

    @Test
    void twoOfTheThree_isOneClearProblem() {
        assertThat(TestConfigs.problems(
                        dir,
                        TestConfigs.withCluster(
                                "metrics_url: http://10.0.0.1:8000/metrics\nmetrics_dns: http://pods:8000/metrics")))
                .containsExactly(AT + "metrics_dns: also metrics_url is set (expected: at most one of metrics_url,"
                        + " metrics_urls, metrics_dns)");
        assertThat(TestConfigs.problems(
                        dir,
                        TestConfigs.withCluster(
                                "metrics_urls: [http://10.0.0.1:8000/metrics]\nmetrics_dns: http://pods:8000/metrics")))
                .containsExactly(AT + "metrics_dns: also metrics_urls is set (expected: at most one of metrics_url,"
                        + " metrics_urls, metrics_dns)");
    }

    @Test
    void metricsUrls_badItems_eachNamed() {
        assertThat(TestConfigs.problems(dir, TestConfigs.withCluster("metrics_urls: []")))
                .containsExactly(AT + "metrics_urls: a list (expected: a non-empty list of http or https URLs)");
        assertThat(TestConfigs.problems(
                        dir,
                        TestConfigs.withCluster(
                                "metrics_urls: [http://a:1/metrics, ftp://b/metrics, 7, http://a:1/metrics]")))
                .containsExactly(
                        AT + "metrics_urls[1]: \"ftp://b/metrics\" (expected: an http or https URL)",
                        AT + "metrics_urls[2]: 7 (expected: an http or https URL)",
                        AT + "metrics_urls[3]: \"http://a:1/metrics\" (expected: a URL not already listed)");
        assertThat(TestConfigs.problems(dir, TestConfigs.withCluster("metrics_urls: http://a:1/metrics")))
                .containsExactly(
                        AT + "metrics_urls: \"http://a:1/metrics\" (expected: a non-empty list of http or https URLs)");
    }

    @Test
    void metricsDns_httpsOrNoUrl_refused() {
        assertThat(TestConfigs.problems(dir, TestConfigs.withCluster("metrics_dns: https://pods:8443/metrics")))
                .containsExactly(AT + "metrics_dns: \"https://pods:8443/metrics\" (expected: an http URL whose host"
                        + " name resolves to the cluster's pods)");
        assertThat(TestConfigs.problems(dir, TestConfigs.withCluster("metrics_dns: pods")))
                .containsExactly(AT + "metrics_dns: \"pods\" (expected: an http or https URL)");
    }

    @Test
    void dnsRefreshSecs_defaultAndWritten() {
        assertThat(ConfigLoader.load(TestConfigs.write(dir, "config.yaml", TestConfigs.MINIMAL))
                        .config()
                        .load()
                        .dnsRefresh())
                .isEqualTo(Duration.ofSeconds(30));
        String written = TestConfigs.MINIMAL + "plugins:\n  grid_site_route:\n    load: {dns_refresh_secs: 5}\n";
        assertThat(ConfigLoader.load(TestConfigs.write(dir, "config.yaml", written))
                        .config()
                        .load()
                        .dnsRefresh())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(TestConfigs.problems(
                        dir, TestConfigs.MINIMAL + "plugins:\n  grid_site_route:\n    load: {dns_refresh_secs: 0}\n"))
                .containsExactly("plugins.grid_site_route.load.dns_refresh_secs: 0 (expected: > 0)");
    }

    @Test
    void effectiveConfig_printsThePodsAsWritten() {
        String printed = EffectiveConfig.yaml(ConfigLoader.load(TestConfigs.write(
                dir,
                "config.yaml",
                TestConfigs.withCluster("metrics_urls: [http://10.0.0.1:8000/metrics, http://10.0.0.2:8000/m]"))));

        assertThat(printed).contains("metrics_urls:\n").contains("- http://10.0.0.2:8000/m\n");
        assertThat(ConfigLoader.load(TestConfigs.write(dir, "again.yaml", printed))
                        .config()
                        .grid()
                        .clusters()
                        .getFirst()
                        .metrics())
                .isInstanceOf(MetricsSource.Urls.class);
    }
}
