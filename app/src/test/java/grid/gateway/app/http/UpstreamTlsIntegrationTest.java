package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSimulator;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway forwarding to, and scraping, an https engine served with a private CA's certificate ("must
 * show"): trusted once {@code ca_file} names the CA, and refused with a 502 and a log line that says why when it does
 * not, when the certificate is for another name, when it expired, and when the engine asks for a client certificate
 * the gateway does not show. Certificates are made for the run.
 */
class UpstreamTlsIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
    private static final Logger TLS_LOG = Logger.getLogger("grid.gateway.tls");

    @TempDir
    Path dir;

    private TestPki pki;
    private EngineSimulator engine;
    private GatewayHarness gateway;
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void setUp() {
        pki = TestPki.create(dir, "site-b");
        TLS_LOG.addHandler(capture);
    }

    @AfterEach
    void tearDown() {
        TLS_LOG.removeHandler(capture);
        if (gateway != null) {
            gateway.close();
        }
        if (engine != null) {
            engine.close();
        }
    }

    @Test
    void privateCa_withoutCaFile_502AndALogLineNamingTheCause() {
        engine = startEngine(serving(pki.issue("engine")));
        gateway = gatewayWith("");

        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);

        assertThat(answer.statusCode()).isEqualTo(502);
        assertThat(answer.body()).contains("The backend cluster could not be reached.");
        assertThat(engine.requestCount()).isZero();
        assertThat(logged)
                .anySatisfy(line -> assertThat(line)
                        .contains("TLS handshake with cluster east/east-a")
                        .contains("PKIX path building failed"));
        assertThat(gateway.metrics()).containsPattern("grid_upstream_errors_total\\{[^}]*kind=\"connect\"");
    }

    @Test
    void privateCa_withCaFile_forwardsAndScrapes() throws Exception {
        engine = startEngine(serving(pki.issue("engine")));
        engine.setQueueDepth(3);
        gateway = gatewayWith("""
                    tls:
                      ca_file: %s
                """.formatted(pki.caFile()));

        HttpResponse<String> answer = gateway.post("/v1/chat/completions", CHAT);
        gateway.server.scrapeNow();

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(new String(GatewayHarness.take(engine).bodyBytes(), java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(CHAT);
        assertThat(queueDepth(gateway.metrics())).isEqualTo("3.0");
    }

    @Test
    void certificateForAnotherName_refused_untilServerNameSaysThatName() {
        engine = startEngine(serving(pki.forName("engine", "engine.site-b.example")));
        gateway = gatewayWith(caOnly());

        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(502);
        assertThat(logged).anySatisfy(line -> assertThat(line).contains("127.0.0.1"));
        gateway.close();

        gateway = gatewayWith("""
                    tls:
                      ca_file: %s
                      server_name: engine.site-b.example
                """.formatted(pki.caFile()));
        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
    }

    @Test
    void certificateNamingOnlyTheAddress_acceptedForAnAddressUrl() throws Exception {
        // The URL is https://127.0.0.1:…; the certificate names IP:127.0.0.1 and nothing else (no localhost).
        engine = startEngine(serving(pki.forName("engine", "127.0.0.1")));
        engine.setQueueDepth(2);
        gateway = gatewayWith(caOnly());

        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
        gateway.server.scrapeNow();
        assertThat(queueDepth(gateway.metrics())).isEqualTo("2.0");
    }

    @Test
    void expiredCertificate_refused() {
        engine = startEngine(serving(pki.expired("engine")));
        gateway = gatewayWith(caOnly());

        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(502);
        assertThat(engine.requestCount()).isZero();
        assertThat(logged).anySatisfy(line -> assertThat(line).containsIgnoringCase("expired"));
    }

    @Test
    void engineRequiringClientCertificate_servedWithCertFile_refusedWithout() {
        TestPki.Pair server = pki.issue("engine");
        engine = startEngine(Tls.builder()
                .privateKey(server.keys().getPrivate())
                .privateKeyCertChain(List.of(server.certificate()))
                .trust(List.of(pki.caCertificate()))
                .clientAuth(TlsClientAuth.REQUIRED)
                .build());
        gateway = gatewayWith(caOnly());
        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(502);
        assertThat(engine.requestCount()).isZero();
        // No log-line check here: under TLS 1.3 the engine's refusal arrives after the gateway's first flight, so it
        // surfaces either as a failed handshake (logged, kind connect) or as a broken connection (kind reset).
        gateway.close();

        TestPki.Pair client = pki.issue("gateway-site-a");
        gateway = gatewayWith("""
                    tls:
                      ca_file: %s
                      cert_file: %s
                      key_file: %s
                """.formatted(pki.caFile(), client.cert(), client.key()));
        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
    }

    @Test
    void clusterTls_overridesTheDefault() {
        engine = startEngine(serving(pki.issue("engine")));
        TestPki other = TestPki.create(dir, "other");
        // The default trusts another CA only; the cluster's own block trusts the engine's.
        gateway = new GatewayHarness(
                dir, GatewayHarness.config("""
                          upstream:
                            tls:
                              ca_file: %s
                        """.formatted(other.caFile()), """
                          - name: east
                            clusters:
                              - name: east-a
                                url: %s
                                metrics_url: http://127.0.0.1:1/metrics
                                models: [demo-model]
                                tls:
                                  ca_file: %s
                        """.formatted(engine.url(), pki.caFile())));

        assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
    }

    private String caOnly() {
        return """
                    tls:
                      ca_file: %s
                """.formatted(pki.caFile());
    }

    /** A gateway whose {@code gateway.upstream} block holds {@code upstream} (indented four spaces). */
    private GatewayHarness gatewayWith(String upstream) {
        return new GatewayHarness(
                dir, GatewayHarness.config("  upstream:\n" + upstream, GatewayHarness.oneScrapedEngine(engine.url())));
    }

    private static EngineSimulator startEngine(Tls tls) {
        return GatewayHarness.engineSettings("east-a").tls(tls).start();
    }

    private static Tls serving(TestPki.Pair pair) {
        return Tls.builder()
                .privateKey(pair.keys().getPrivate())
                .privateKeyCertChain(List.of(pair.certificate()))
                .build();
    }

    private static String queueDepth(String metrics) {
        Matcher m = Pattern.compile("grid_cluster_queue_depth\\{[^}]*east-a[^}]*} (\\S+)")
                .matcher(metrics);
        return m.find() ? m.group(1) : "absent";
    }
}
