package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WARNING line of a cluster's failed TLS handshake is written once per cluster, origin and reason until a request
 * to it succeeds: a reload that moves the cluster, or changes its {@code tls} block, and still fails for the same
 * reason is logged again, naming where, so the operator who made the change sees that it did not mend the cluster.
 * The same failure again, with nothing changed, is not.
 */
class HandshakeFailureLogAcrossReloadsIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";

    @TempDir
    Path dir;

    private TestPki pki;
    private TestPki untrusted;
    private ScriptedUpstream engine;
    private ScriptedUpstream moved;
    private GatewayHarness gateway;
    private CapturedLog log;
    private Path file;

    @BeforeEach
    void setUp() {
        pki = TestPki.create(dir, "engines");
        untrusted = TestPki.create(dir, "untrusted");
        engine = new ScriptedUpstream(pki.context(pki.issue("engine")));
        moved = new ScriptedUpstream(pki.context(pki.issue("moved")));
        file = dir.resolve("gateway.yaml");
        log = CapturedLog.named("grid.gateway.tls");
    }

    @AfterEach
    void tearDown() {
        log.close();
        if (gateway != null) {
            gateway.close();
        }
        engine.close();
        moved.close();
    }

    @Test
    void clusterMovedAndStillRefused_loggedAgainNamingTheNewPlace() throws Exception {
        write(engine.url(), untrusted.caFile());
        gateway = GatewayHarness.fromFile(file);
        assertThat(post()).isEqualTo(502);
        assertThat(post()).isEqualTo(502);
        assertThat(failures()).hasSize(1).allSatisfy(line -> assertThat(line).contains(hostAndPort(engine)));

        write(moved.url(), untrusted.caFile());
        gateway.server.reloadNow();
        assertThat(post()).isEqualTo(502);

        assertThat(failures()).hasSize(2);
        assertThat(failures().get(1)).contains("cluster east/east-a at " + hostAndPort(moved));
    }

    @Test
    void trustStoreChangedAndStillRefused_loggedAgain() throws Exception {
        write(engine.url(), untrusted.caFile());
        gateway = GatewayHarness.fromFile(file);
        assertThat(post()).isEqualTo(502);

        TestPki another = TestPki.create(dir, "another");
        write(engine.url(), another.caFile());
        gateway.server.reloadNow();
        assertThat(post()).isEqualTo(502);

        assertThat(failures()).hasSize(2);
    }

    @Test
    void clusterRemovedAndAddedBackStillRefused_loggedAgain() throws Exception {
        write(engine.url(), untrusted.caFile());
        gateway = GatewayHarness.fromFile(file);
        assertThat(post()).isEqualTo(502);

        Files.writeString(
                file,
                GatewayHarness.config(
                        "", "  - name: east\n    clusters:\n" + cluster("east-b", "http://127.0.0.1:9", "")));
        gateway.server.reloadNow();
        write(engine.url(), untrusted.caFile());
        gateway.server.reloadNow();
        assertThat(post()).isEqualTo(502);

        assertThat(failures()).hasSize(2);
    }

    private int post() {
        return gateway.post("/v1/chat/completions", CHAT).statusCode();
    }

    private List<String> failures() {
        return log.messages().stream()
                .filter(line -> line.startsWith("TLS handshake with cluster"))
                .toList();
    }

    private void write(String url, Path ca) throws Exception {
        Files.writeString(
                file,
                GatewayHarness.config(
                        "",
                        "  - name: east\n    clusters:\n"
                                + cluster("east-a", url, "        tls:\n          ca_file: " + ca + "\n")));
    }

    private static String cluster(String name, String url, String tls) {
        return "      - name: " + name + "\n        url: " + url
                + "\n        metrics_url: http://127.0.0.1:1/metrics\n        models: [demo-model]\n" + tls;
    }

    private static String hostAndPort(ScriptedUpstream upstream) {
        return upstream.url().substring("https://".length());
    }
}
