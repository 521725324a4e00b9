package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSimulator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's own listeners over TLS: {@code client_auth: required} refuses a client
 * without a certificate of {@code client_ca_file}; the admin listener serves its own TLS; a rotated certificate is
 * served to new connections without a restart (files swapped as a Kubernetes Secret update swaps them, by symbolic
 * link), and a broken pair is refused while the one in force keeps serving. Certificates are made for the run.
 */
class ListenerTlsIntegrationTest {
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
    void clientAuthRequired_refusesAClientWithoutCertificate_servesOneWithIt() throws Exception {
        TestPki.Pair listener = pki.issue("gateway");
        TestPki.Pair consumer = pki.issue("consumer-gateway");
        gateway = start("""
                  tls:
                    cert_file: %s
                    key_file: %s
                    client_ca_file: %s
                    client_auth: required
                """.formatted(listener.cert(), listener.key(), pki.caFile()));

        assertThatThrownBy(() -> get(pki.trustOnly(), gateway.port(), "/v1/models"))
                .isInstanceOf(IOException.class);
        assertThat(get(pki.context(consumer), gateway.port(), "/v1/models").statusCode())
                .isEqualTo(200);
    }

    @Test
    void adminTls_servesHealthOverTls_notPlain() throws Exception {
        TestPki.Pair admin = pki.issue("gateway-admin");
        gateway = start("""
                  admin_tls:
                    cert_file: %s
                    key_file: %s
                """.formatted(admin.cert(), admin.key()));

        assertThat(get(pki.trustOnly(), gateway.adminPort(), "/health/live").statusCode())
                .isEqualTo(200);
        assertThatThrownBy(() -> plain(gateway.adminPort(), "/health/live")).isInstanceOf(IOException.class);
    }

    @Test
    void rotation_newPairServedToNewConnections_brokenPairRefusedOldKeepsServing() throws Exception {
        Path secret = dir.resolve("secret");
        Files.createDirectories(secret);
        TestPki.Pair first = pki.issue("gateway-1");
        TestPki.Pair second = pki.issue("gateway-2");
        mount(secret, "v1", first.cert(), first.key());
        gateway = start("""
                  tls:
                    cert_file: %s
                    key_file: %s
                """.formatted(secret.resolve("tls.crt"), secret.resolve("tls.key")));
        assertThat(servedCertificate()).isEqualTo(first.certificate());
        double appliedBefore = reloads("applied");
        double refusedBefore = reloads("refused");

        mount(secret, "v2", second.cert(), second.key());
        gateway.reloadNow();

        assertThat(servedCertificate()).isEqualTo(second.certificate());
        assertThat(reloads("applied")).isEqualTo(appliedBefore + 1);

        // A certificate with the key of another: refused, and the second pair keeps serving.
        TestPki.Pair third = pki.issue("gateway-3");
        mount(secret, "v3", third.cert(), first.key());
        gateway.reloadNow();

        assertThat(servedCertificate()).isEqualTo(second.certificate());
        assertThat(reloads("refused")).isEqualTo(refusedBefore + 1);
        assertThat(get(pki.trustOnly(), gateway.port(), "/v1/models").statusCode())
                .isEqualTo(200);
    }

    /**
     * Makes {@code secret/tls.crt} and {@code secret/tls.key} links into {@code secret/..data}, itself a link to
     * {@code secret/<version>}, swapped in one rename: how a Kubernetes Secret volume updates.
     */
    private static void mount(Path secret, String version, Path cert, Path key) throws IOException {
        Path folder = secret.resolve(version);
        Files.createDirectories(folder);
        Files.copy(cert, folder.resolve("tls.crt"));
        Files.copy(key, folder.resolve("tls.key"));
        Path next = secret.resolve("..data_tmp");
        Files.deleteIfExists(next);
        Files.createSymbolicLink(next, Path.of(version));
        Files.move(next, secret.resolve("..data"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        for (String name : new String[] {"tls.crt", "tls.key"}) {
            if (!Files.isSymbolicLink(secret.resolve(name))) {
                Files.createSymbolicLink(secret.resolve(name), Path.of("..data", name));
            }
        }
    }

    private X509Certificate servedCertificate() throws Exception {
        HttpResponse<String> answer = get(pki.trustOnly(), gateway.port(), "/v1/models");
        return (X509Certificate) answer.sslSession().orElseThrow().getPeerCertificates()[0];
    }

    private double reloads(String result) throws Exception {
        String metrics = plain(gateway.adminPort(), "/metrics").body();
        Matcher m = Pattern.compile("grid_config_reloads_total\\{[^}]*result=\"" + result + "\"[^}]*} (\\S+)")
                .matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private GatewayServer start(String serverTls) throws IOException {
        Path config = dir.resolve("gateway.yaml");
        Files.writeString(config, GatewayHarness.config(serverTls, "", GatewayHarness.oneEngine(engine.url())));
        // From the file, as in production, so that reloadNow re-reads the certificate it names; its clients are the
        // test's own (each trusting what the case needs), so only the server is kept.
        return GatewayHarness.fromFile(config).server;
    }

    /** A GET over TLS on a new connection (a new client each time, so nothing is reused). */
    private static HttpResponse<String> get(SSLContext tls, int port, String path) throws Exception {
        return fetch(Optional.of(tls), port, path);
    }

    private static HttpResponse<String> plain(int port, String path) throws Exception {
        return fetch(Optional.empty(), port, path);
    }

    private static HttpResponse<String> fetch(Optional<SSLContext> tls, int port, String path) throws Exception {
        String scheme = tls.isPresent() ? "https" : "http";
        try (HttpClient client = GatewayHarness.client(tls)) {
            return client.send(
                    HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + port + path))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
