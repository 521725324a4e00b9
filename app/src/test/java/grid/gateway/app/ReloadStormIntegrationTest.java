package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A storm of reloads: 100 changes of the config file, each read by a reload of a running TLS gateway, each changing
 * its certificate, its clusters (their names, count and URLs) and its poll interval, with invalid ones between. The
 * last change serves whole (its certificate, its clusters), each valid change is counted applied and each invalid
 * one refused, and nothing is left behind: no platform thread more than a few, no series of a cluster no longer
 * listed.
 */
class ReloadStormIntegrationTest {
    private static final int CHANGES = 100;
    /** Platform threads a storm may leave more than it found (a pool warming up); a leak per reload leaves 100. */
    private static final int THREAD_SLACK = 8;

    private static final Pattern CLUSTER_LABEL = Pattern.compile("cluster=\"([^\"]+)\"");

    @TempDir
    Path dir;

    private TestPki pki;
    private EngineSimulator engine;
    private GatewayServer gateway;

    @BeforeEach
    void setUp() {
        pki = TestPki.create(dir, "storm");
        engine = GatewayHarness.engine("east-a");
    }

    @AfterEach
    void tearDown() {
        if (gateway != null) {
            gateway.close();
        }
        engine.close();
    }

    @Test
    void hundredChanges_theLastServesWhole_eachCounted_nothingLeftBehind() throws Exception {
        List<TestPki.Pair> pairs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            pairs.add(pki.issue("gateway-" + i));
        }
        Path file = dir.resolve("gateway.yaml");
        Files.writeString(file, config(pairs.getFirst(), 0));
        gateway = GatewayHarness.fromFile(file).server;
        // One change applied first, so that whatever the first reload starts once is counted in the baseline.
        Files.writeString(file, config(pairs.get(1), 1));
        gateway.reloadNow();
        assertThat(get("/v1/models").statusCode()).isEqualTo(200);
        long threads = platformThreads();
        int applied = 1;
        int refused = 0;

        for (int change = 2; change < CHANGES; change++) {
            if (change % 5 == 0) {
                Files.writeString(file, config(pairs.get(change % pairs.size()), change) + "bogus: " + change + "\n");
                refused++;
            } else {
                Files.writeString(file, config(pairs.get(change % pairs.size()), change));
                applied++;
            }
            gateway.reloadNow();
        }
        int last = CHANGES - 1;

        HttpResponse<String> models = get("/v1/models");
        assertThat(models.statusCode()).isEqualTo(200);
        assertThat(served(models)).isEqualTo(pairs.get(last % pairs.size()).certificate());
        String metrics = metrics();
        assertThat(metrics)
                .containsPattern("grid_config_reloads_total\\{result=\"applied\"[^}]*} " + applied + "\\.0")
                .containsPattern("grid_config_reloads_total\\{result=\"refused\"[^}]*} " + refused + "\\.0");
        assertThat(clusterLabels(metrics)).containsExactlyInAnyOrderElementsOf(clusters(last));
        assertThat(platformThreads()).isLessThanOrEqualTo(threads + THREAD_SLACK);
    }

    /** Change {@code change}: the engine as {@code east-a}, and 0 to 2 more clusters named after the change. */
    private String config(TestPki.Pair listener, int change) {
        StringBuilder more = new StringBuilder();
        for (String name : clusters(change)) {
            if (!name.equals("east/east-a")) {
                more.append("      - name: ")
                        .append(name.substring("east/".length()))
                        .append("\n        url: http://127.0.0.1:")
                        .append(9 + change)
                        .append("\n        metrics_url: http://127.0.0.1:1/metrics\n        models: [demo-model]\n");
            }
        }
        return GatewayHarness.config(
                listener.serverTls(),
                "  config_poll_ms: " + (1_000 + change) + "\n",
                GatewayHarness.oneSite(engine.url()) + more);
    }

    /** The clusters of change {@code change}, as their metric labels. */
    private static List<String> clusters(int change) {
        List<String> names = new ArrayList<>(List.of("east/east-a"));
        for (int i = 0; i < change % 3; i++) {
            names.add("east/c" + change + "-" + i);
        }
        return names;
    }

    private static List<String> clusterLabels(String metrics) {
        List<String> labels = new ArrayList<>();
        Matcher matcher = CLUSTER_LABEL.matcher(metrics);
        while (matcher.find()) {
            if (!labels.contains(matcher.group(1))) {
                labels.add(matcher.group(1));
            }
        }
        return labels;
    }

    private static long platformThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(Thread::isAlive)
                .count();
    }

    private static X509Certificate served(HttpResponse<String> answer) throws Exception {
        return (X509Certificate) answer.sslSession().orElseThrow().getPeerCertificates()[0];
    }

    /** A GET over TLS on a new connection (a new client, so the certificate is the one served now). */
    private HttpResponse<String> get(String path) throws Exception {
        try (HttpClient client = GatewayHarness.client(Optional.of(pki.trustOnly()))) {
            return GatewayHarness.send(
                    client,
                    HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + gateway.port() + path))
                            .build());
        }
    }

    private String metrics() throws Exception {
        try (HttpClient client = GatewayHarness.client(Optional.empty())) {
            return GatewayHarness.send(
                            client,
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateway.adminPort() + "/metrics"))
                                    .build())
                    .body();
        }
    }
}
