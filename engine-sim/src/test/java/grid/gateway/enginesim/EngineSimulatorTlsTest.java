package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/** The simulator's HTTPS option ({@code --tls-cert}, {@code --tls-key}), with the example files of etc/tls. */
class EngineSimulatorTlsTest {
    private static final Path TLS = Path.of("../etc/tls");

    @Test
    void tlsFlags_serveHttpsWithThatCertificate() throws Exception {
        EngineSettings settings = EngineSimulatorMain.parse(new String[] {
            "--port",
            "0",
            "--instant",
            "--tls-cert",
            TLS.resolve("east-gateway.crt.pem").toString(),
            "--tls-key",
            TLS.resolve("east-gateway.key.pem").toString()
        });

        try (EngineSimulator engine = EngineSimulator.start(settings);
                HttpClient client = HttpClient.newBuilder()
                        .sslContext(trusting(TLS.resolve("grid-ca.pem")))
                        .build()) {
            assertThat(engine.url()).startsWith("https://127.0.0.1:");
            HttpResponse<String> models = client.send(
                    HttpRequest.newBuilder(URI.create(engine.url() + "/v1/models"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(models.statusCode()).isEqualTo(200);
            assertThat(models.body()).contains("demo-model");
        }
    }

    @Test
    void tlsCertWithoutKey_isAUsageError() {
        assertThatThrownBy(() -> EngineSimulatorMain.parse(new String[] {"--tls-cert", "x.pem"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--tls-cert and --tls-key go together");
    }

    private static SSLContext trusting(Path ca) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            trust.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
