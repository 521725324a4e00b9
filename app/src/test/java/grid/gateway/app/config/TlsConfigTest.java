package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS blocks of the config: read with their PEM files, printed by {@code --check-config} as paths only, and each
 * mistake refused with one problem that names its key path (certificates made for the run).
 */
class TlsConfigTest {
    @TempDir
    Path dir;

    private TestPki pki;
    private TestPki.Pair server;
    private TestPki.Pair client;

    @BeforeEach
    void setUp() {
        pki = TestPki.create(dir, "grid");
        server = pki.issue("server");
        client = pki.issue("client");
    }

    private static final String HTTPS = MINIMAL.replace("http://127.0.0.1:8001", "https://127.0.0.1:8443");

    @Test
    void load_everyTlsBlock_readsItsFilesRelativeToTheConfig_printsPathsOnly_roundTrips() throws IOException {
        String yaml = """
                server:
                  tls:
                    cert_file: server.crt.pem
                    key_file: server.key.pem
                    client_ca_file: grid-ca.pem
                  admin_tls:
                    cert_file: server.crt.pem
                    key_file: server.key.pem
                gateway:
                  site: east
                  upstream:
                    tls:
                      ca_file: grid-ca.pem
                      cert_file: client.crt.pem
                      key_file: client.key.pem
                sites:
                  - name: east
                    clusters:
                      - name: east-a
                        url: https://127.0.0.1:8443
                        models: [demo-model]
                        tls:
                          ca_file: grid-ca.pem
                          server_name: engine.east.example
                """;
        GatewaySnapshot snapshot = ConfigLoader.load(TestConfigs.write(dir, "gateway.yaml", yaml));
        TransportSecurity tls = snapshot.config().tls();

        assertThat(tls.server().orElseThrow().certFile()).isEqualTo(server.cert());
        assertThat(tls.server().orElseThrow().clientAuth()).isEqualTo(ListenerTls.ClientAuth.REQUIRED);
        assertThat(tls.admin().orElseThrow().clientCaFile()).isEmpty();
        assertThat(tls.upstreamDefault().orElseThrow().material().certChain()).containsExactly(client.certificate());
        UpstreamTls own =
                tls.forCluster(snapshot.config().grid().clusters().getFirst()).orElseThrow();
        assertThat(own.serverName()).contains("engine.east.example");
        assertThat(own.material().trust()).containsExactly(pki.caCertificate());

        String effective = EffectiveConfig.yaml(snapshot);
        assertThat(effective)
                .contains("client_auth: required")
                .contains("insecure_skip_verify: false")
                .contains("key_file: " + client.key())
                .doesNotContain("BEGIN");
        GatewaySnapshot again = ConfigLoader.load(TestConfigs.write(dir, "effective.yaml", effective));
        assertThat(again.config().tls().server().orElseThrow().material().fingerprint())
                .isEqualTo(tls.server().orElseThrow().material().fingerprint());
        assertThat(EffectiveConfig.yaml(again)).isEqualTo(effective);
    }

    @Test
    void insecureSkipVerify_refusedWithoutTheDevelopmentFlag_allowedWithIt() {
        String insecure = HTTPS.replace(
                "  site: east\n", "  site: east\n  upstream:\n    tls:\n      insecure_skip_verify: true\n");

        assertThat(TestConfigs.problems(dir, insecure))
                .containsExactly("gateway.upstream.tls.insecure_skip_verify: true (expected: false; certificate checks"
                        + " can be skipped only in development, with development.allow_insecure_tls: true)");
        GatewaySnapshot allowed = ConfigLoader.load(
                TestConfigs.write(dir, "dev.yaml", insecure + "development:\n  allow_insecure_tls: true\n"));
        assertThat(allowed.config().tls().upstreamDefault().orElseThrow().insecureSkipVerify())
                .isTrue();
        assertThat(EffectiveConfig.yaml(allowed)).contains("allow_insecure_tls: true");
    }

    @Test
    void mistakes_eachRefusedWithOneProblemNamingItsKeyPath() throws IOException {
        Path notPem = Files.writeString(dir.resolve("not.pem"), "hello\n");
        assertProblem(
                upstream("cert_file: " + client.cert()),
                "gateway.upstream.tls.key_file: missing (expected: cert_file and key_file together, for mutual TLS)");
        assertProblem(
                upstream("cert_file: " + client.cert() + "\nkey_file: " + server.key()),
                "gateway.upstream.tls.key_file: \"" + server.key() + "\": is not the private key of the first"
                        + " certificate in \"" + client.cert() + "\" (expected: the key and certificate of one pair)");
        assertProblem(
                upstream("ca_file: " + notPem),
                "gateway.upstream.tls.ca_file: \"" + notPem + "\": holds no PEM certificate (expected: BEGIN"
                        + " CERTIFICATE)");
        assertProblem(
                upstream("ca_file: " + dir.resolve("absent.pem")),
                "gateway.upstream.tls.ca_file: \"" + dir.resolve("absent.pem") + "\": cannot read the file (no such"
                        + " file)");
        assertProblem(
                upstream("cert_file: " + client.cert() + "\nkey_file: " + notPem),
                "gateway.upstream.tls.key_file: \"" + notPem + "\": holds no readable private key (expected: an"
                        + " unencrypted PKCS#8 PEM key, BEGIN PRIVATE KEY)");
        assertProblem(
                upstream("ca_file: " + pki.caFile() + "\ninsecure_skip_verify: true")
                        + "development:\n  allow_insecure_tls: true\n",
                "gateway.upstream.tls.insecure_skip_verify: true (expected: false when ca_file or server_name is set:"
                        + " those settings check what it skips)");
        assertProblem(
                upstream("server_name: \"bad name\""),
                "gateway.upstream.tls.server_name: \"bad name\" (expected: a DNS name the cluster's certificate holds)");
        assertProblem(
                listener("client_auth: required"),
                "server.tls.client_auth: \"required\" (expected: no client_auth without client_ca_file)");
        assertProblem(
                listener("client_ca_file: " + pki.caFile() + "\nclient_auth: sometimes"),
                "server.tls.client_auth: \"sometimes\" (expected: required or optional, with client_ca_file)");
        assertProblem(
                MINIMAL.replace("        models: [demo-model]\n", "        models: [demo-model]\n        tls: {}\n"),
                "sites[0].clusters[0].tls: \"(a block)\" (expected: tls only on a cluster with an https url)");
    }

    @Test
    void listenerWithoutKeyFile_andAnUnknownKey_refused() {
        assertThat(TestConfigs.problems(
                        dir, "server:\n  tls:\n    cert_file: " + server.cert() + "\n    ca_file: x\n" + MINIMAL))
                .anySatisfy(p -> assertThat(p).startsWith("server.tls.ca_file"))
                .anySatisfy(p -> assertThat(p).startsWith("server.tls.key_file: missing"));
    }

    private void assertProblem(String yaml, String problem) {
        assertThat(TestConfigs.problems(dir, yaml)).as(yaml).containsExactly(problem);
    }

    private static String upstream(String lines) {
        return HTTPS.replace("  site: east\n", "  site: east\n  upstream:\n    tls:\n" + TestConfigs.indent(lines, 6));
    }

    private String listener(String lines) {
        return "server:\n  tls:\n    cert_file: " + server.cert() + "\n    key_file: " + server.key() + "\n"
                + TestConfigs.indent(lines, 4) + HTTPS;
    }
}
