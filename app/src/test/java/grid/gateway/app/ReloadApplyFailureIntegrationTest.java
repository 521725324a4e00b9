package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewayConfig;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.config.LoadSettings;
import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot whose apply fails part-way leaves the config in force whole: here the load window, the step after the
 * listener's certificate, the clusters' TLS and the grid could have taken effect, refuses a window of zero (a snapshot
 * the loader would not make). The old certificate, the old grid, its models and its cluster meters keep serving, and a
 * valid snapshot then applies whole.
 */
class ReloadApplyFailureIntegrationTest {
    @TempDir
    Path dir;

    private TestPki pki;
    private EngineSimulator engine;
    private GatewayServer gateway;

    @BeforeEach
    void setUp() {
        pki = TestPki.create(dir, "site-a");
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
    void applyFailsAfterTheTlsAndGrid_oldCertificateGridAndMetersKeepServing_thenAValidOneAppliesWhole()
            throws Exception {
        TestPki.Pair first = pki.issue("gateway-1");
        TestPki.Pair second = pki.issue("gateway-2");
        gateway = GatewayHarness.fromFile(write("first.yaml", first, "")).server;
        assertThat(served()).isEqualTo(first.certificate());
        GatewaySnapshot next = ConfigLoader.load(write("second.yaml", second, """
                      - name: east-b
                        url: http://127.0.0.1:9
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [second-model]
                """));
        GatewayConfig valid = next.config();
        LoadSettings load = valid.load();
        GatewaySnapshot broken = new GatewaySnapshot(
                new GatewayConfig(
                        valid.server(),
                        valid.gateway(),
                        valid.upstream(),
                        valid.grid(),
                        new LoadSettings(
                                load.pollInterval(),
                                Duration.ZERO,
                                load.queueMetric(),
                                load.countSentSinceScrape(),
                                load.orderBy(),
                                load.dnsRefresh()),
                        valid.prefixAffinity(),
                        valid.sharing(),
                        valid.tls(),
                        valid.tracing()),
                next.keyRing());

        assertThatThrownBy(() -> gateway.apply(broken)).isInstanceOf(IllegalArgumentException.class);

        assertThat(served()).isEqualTo(first.certificate());
        assertThat(get("/v1/models").body()).contains("demo-model").doesNotContain("second-model");
        assertThat(metrics()).contains("cluster=\"east/east-a\"").doesNotContain("cluster=\"east/east-b\"");

        gateway.apply(next);

        assertThat(served()).isEqualTo(second.certificate());
        assertThat(get("/v1/models").body()).contains("second-model");
        assertThat(metrics()).contains("cluster=\"east/east-b\"");
    }

    private Path write(String name, TestPki.Pair listener, String moreClusters) throws Exception {
        return Files.writeString(
                dir.resolve(name),
                GatewayHarness.config(listener.serverTls(), "", GatewayHarness.oneSite(engine.url()) + moreClusters));
    }

    private X509Certificate served() throws Exception {
        return (X509Certificate) get("/v1/models").sslSession().orElseThrow().getPeerCertificates()[0];
    }

    /** A GET over TLS on a new connection (a new client each time, so the certificate is the one served now). */
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
