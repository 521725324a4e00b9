package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code /metrics} as real scrapers ask for it, from a gateway whose cluster names hold what the config allows and a
 * page's syntax does not: double quotes, backslashes (one before an {@code n} too, which a writer that escapes only
 * quotes turns into a newline), braces, commas, {@code =} and {@code #}, non-ASCII (an emoji outside the BMP), and
 * the longest name (253 characters). Each page must be read whole by a strict reader of the format its
 * {@code Content-Type} names ({@link StrictExposition}), carry every cluster's name exactly, and say its format with
 * its version and charset: Prometheus 3 and 2 prefer OpenMetrics, a scraper without {@code Accept} gets the text format.
 */
class ScrapersIntegrationTest {
    /** Prometheus 3.x's default scrape Accept (scrape_protocols: OpenMetricsText1.0.0 first). */
    static final String PROMETHEUS_3 = "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
            + "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,"
            + "text/plain;version=0.0.4;q=0.2,*/*;q=0.1";
    /** Prometheus 2.x's scrape Accept. */
    static final String PROMETHEUS_2 = "application/openmetrics-text;version=1.0.0,"
            + "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

    /** Cluster names the config takes, each a label value that must be escaped on the page. */
    static final List<String> NAMES = List.of(
            "q\"uote", "back\\slash\\", "not\\newline", "\\\"", "a},b=\"c\",d{#", "it's ünï日本😀", "l".repeat(253));

    private static GatewayHarness gateway;

    @BeforeAll
    static void start(@org.junit.jupiter.api.io.TempDir Path dir) {
        EngineSimulator one = GatewayHarness.engine("one");
        EngineSimulator two = GatewayHarness.engine("two");
        gateway = new GatewayHarness(dir, config(NAMES, one.url(), two.url()), one, two);
        gateway.server.scrapeNow();
        for (int i = 0; i < 6; i++) {
            gateway.post("/v1/chat/completions", chat(i));
        }
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    /** A config of site {@code east} with a cluster per name, alternately at {@code urls}, all serving the model. */
    static String config(List<String> names, String... urls) {
        StringBuilder clusters = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            clusters.append("      - name: '")
                    .append(names.get(i).replace("'", "''"))
                    .append("'\n        url: ")
                    .append(urls[i % urls.length])
                    .append("\n        models: [demo-model]\n");
        }
        return """
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                sites:
                  - name: east
                    clusters:
                %splugins:
                  grid_site_route:
                    prefix_affinity: {queued_request_seconds: auto}
                """.formatted(clusters);
    }

    static String chat(int i) {
        return "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + "p".repeat(1100) + i
                + "\"}]}";
    }

    static String scrape(String accept) {
        return "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Prometheus/3.5.0\r\n"
                + (accept.isEmpty() ? "" : "Accept: " + accept + "\r\n")
                + "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\nConnection: close\r\n\r\n";
    }

    @ParameterizedTest
    @ValueSource(strings = {PROMETHEUS_3, PROMETHEUS_2, "application/openmetrics-text"})
    void prometheusPreferringOpenMetrics_aValidOpenMetricsPage_saidWithItsVersion_everyNameExact(String accept) {
        AdminExchange page = AdminExchange.send(gateway.server.adminPort(), scrape(accept));

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).contains(ExpositionFormats.OPENMETRICS_TEXT);
        assertThat(page.header("Content-Encoding")).isEmpty();
        assertThat(page.framedByLength()).as(page.head()).isTrue();
        StrictExposition.Page read = StrictExposition.openMetrics(page.body());
        assertThat(clusters(read)).isEqualTo(expected(NAMES));
        assertThat(read.named("grid_upstream_requests_total")).isNotEmpty();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "*/*", "text/plain;version=0.0.4", "text/plain", "text/*;q=0.9, application/json;q=0.1"})
    void scraperOfTheTextFormat_aValidPrometheusTextPage_saidWithItsVersion_everyNameExact(String accept) {
        AdminExchange page = AdminExchange.send(gateway.server.adminPort(), scrape(accept));

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).contains(ExpositionFormats.PROMETHEUS_TEXT);
        assertThat(page.framedByLength()).as(page.head()).isTrue();
        StrictExposition.Page read = StrictExposition.prometheusText(page.body());
        assertThat(clusters(read)).isEqualTo(expected(NAMES));
        assertThat(read.named("grid_upstream_requests_total")).isNotEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/metrics/application", "/metrics/", "/metrics?", "/metrics?scope=application"})
    void otherSpellingsOfThePage_theSameFormatSaid_aValidPage(String target) {
        AdminExchange page =
                AdminExchange.send(gateway.server.adminPort(), scrape("").replace("/metrics", target));

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.header("Content-Type")).contains(ExpositionFormats.PROMETHEUS_TEXT);
        assertThat(clusters(StrictExposition.prometheusText(page.body()))).isEqualTo(expected(NAMES));
    }

    @Test
    void curlHead_theHeadOfThePage_noContent() {
        AdminExchange head = AdminExchange.send(
                gateway.server.adminPort(),
                "HEAD /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n"
                        + "Connection: close\r\n\r\n");

        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("Content-Type")).contains(ExpositionFormats.PROMETHEUS_TEXT);
        assertThat(head.header("Content-Length")).isPresent();
        assertThat(head.body()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/xml", "application/json", "application/json, text/plain;q=0.5", "image/*"})
    void acceptOfNoFormatThePageHas_406SayingWhatIsServed(String accept) {
        AdminExchange page = AdminExchange.send(gateway.server.adminPort(), scrape(accept));

        assertThat(page.status()).isEqualTo(406);
        assertThat(page.framedByLength()).isTrue();
        assertThat(page.text())
                .isEqualTo("not acceptable: /metrics is served as text/plain (Prometheus 0.0.4) or"
                        + " application/openmetrics-text\n");
    }

    /** The {@code cluster} label values of the page's per-cluster queue depth, decoded. */
    static Set<String> clusters(StrictExposition.Page page) {
        return page.named("grid_cluster_queue_depth").stream()
                .map(s -> s.labels().get("cluster"))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<String> expected(List<String> names) {
        return names.stream().map(n -> "east/" + n).collect(Collectors.toCollection(TreeSet::new));
    }
}
