package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pooled upstream connection carries only requests the config in force would open that same connection for. An
 * https engine asks for the gateway's client certificate; each reload below changes what a connection to it is made
 * with (the client certificate, the trust store's bytes at the same path, the server name, the cluster's URL, the
 * cluster itself) or nothing it is made with. A connection made under the config before is closed by the reload when
 * idle, and when the reload came while it carried an answer, as that answer ends, never pooled; the next request
 * goes on a new connection made as the new config says. A reload that leaves the connection's settings alone keeps
 * it, and so does one that removes a second cluster at the same origin. Two clusters at one host and port with other
 * client certificates never share a connection.
 */
class PooledConnectionsAcrossReloadsIntegrationTest {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hello\"}]}";
    /** Far below the 60 s an idle connection may wait in the pool: the close comes with the reload, not the sweep. */
    private static final Duration CLOSED_WITHIN = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private TestPki pki;
    private TestPki.Pair clientA;
    private TestPki.Pair clientB;
    private ScriptedUpstream engine;
    private GatewayHarness gateway;
    private Path file;

    @BeforeEach
    void setUp() {
        pki = TestPki.create(dir, "pool");
        clientA = pki.issue("client-a");
        clientB = pki.issue("client-b");
        engine = engineServing();
        file = dir.resolve("gateway.yaml");
    }

    @AfterEach
    void tearDown() {
        if (gateway != null) {
            gateway.close();
        }
        engine.close();
    }

    @Test
    void aReloadThatLeavesTheConnectionsSettingsAlone_keepsItAndReusesIt() throws Exception {
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(pki.caFile(), clientA)));

        write(
                "  config_poll_ms: 1234\n",
                cluster("east-a", engine.url(), tls(pki.caFile(), clientA))
                        + cluster("east-b", "http://127.0.0.1:9", ""));
        gateway.server.reloadNow();

        ScriptedUpstream.Exchange next = send();
        assertThat(next.tcp.getPort()).as("the pooled connection, reused").isEqualTo(first.tcp.getPort());
        assertThat(engine.connections()).isEqualTo(1);
    }

    @Test
    void clientCertificateRotated_idleConnectionClosed_nextShowsTheNewOne() throws Exception {
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(pki.caFile(), clientA)));
        assertThat(first.clientCertificate()).isEqualTo(clientA.certificate());

        rewrite(cluster("east-a", engine.url(), tls(pki.caFile(), clientB)));

        awaitClosed(first);
        ScriptedUpstream.Exchange next = send();
        assertThat(next.tcp.getPort()).isNotEqualTo(first.tcp.getPort());
        assertThat(next.clientCertificate()).isEqualTo(clientB.certificate());
    }

    @Test
    void trustStoreRewrittenInPlace_idleConnectionClosed() throws Exception {
        Path bundle = Files.writeString(dir.resolve("bundle.pem"), Files.readString(pki.caFile()));
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(bundle, clientA)));

        // The same path, another CA appended: the trust the connection was checked with is not the one in force.
        TestPki other = TestPki.create(dir, "other");
        Files.writeString(bundle, Files.readString(pki.caFile()) + Files.readString(other.caFile()));
        gateway.server.reloadNow();

        awaitClosed(first);
        assertThat(send().tcp.getPort()).isNotEqualTo(first.tcp.getPort());
    }

    @Test
    void serverNameSet_idleConnectionClosed() throws Exception {
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(pki.caFile(), clientA)));

        rewrite(cluster("east-a", engine.url(), tls(pki.caFile(), clientA) + "          server_name: localhost\n"));

        awaitClosed(first);
        assertThat(send().tcp.getPort()).isNotEqualTo(first.tcp.getPort());
    }

    @Test
    void clusterTlsMovedToTheDefaultWithAnotherCertificate_idleConnectionClosed() throws Exception {
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(pki.caFile(), clientA)));

        write(
                "  upstream:\n" + tls(pki.caFile(), clientB).replace("        ", "    "),
                cluster("east-a", engine.url(), ""));
        gateway.server.reloadNow();

        awaitClosed(first);
        assertThat(send().clientCertificate()).isEqualTo(clientB.certificate());
    }

    @Test
    void clusterMovedToAnotherEngine_idleConnectionToTheOldOneClosed() throws Exception {
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(pki.caFile(), clientA)));
        try (ScriptedUpstream moved = engineServing()) {
            rewrite(cluster("east-a", moved.url(), tls(pki.caFile(), clientA)));

            awaitClosed(first);
            assertThat(gateway.post("/v1/chat/completions", CHAT).statusCode()).isEqualTo(200);
            assertThat(moved.take().clientCertificate()).isEqualTo(clientA.certificate());
        }
    }

    @Test
    void clusterRemoved_idleConnectionClosed_thenAddedBackUnderItsName_aNewOne() throws Exception {
        String eastA = cluster("east-a", engine.url(), tls(pki.caFile(), clientA));
        ScriptedUpstream.Exchange first = startAndSend(eastA);

        rewrite(cluster("east-b", "http://127.0.0.1:9", ""));
        awaitClosed(first);

        rewrite(eastA);
        assertThat(send().tcp.getPort()).isNotEqualTo(first.tcp.getPort());
        assertThat(engine.connections()).isEqualTo(2);
    }

    @Test
    void secondClusterAtTheSameOriginRemoved_theConnectionStaysForTheOther() throws Exception {
        String eastA = cluster("east-a", engine.url(), tls(pki.caFile(), clientA));
        ScriptedUpstream.Exchange first =
                startAndSend(eastA + cluster("east-b", engine.url() + "/", tls(pki.caFile(), clientA)));

        rewrite(eastA);

        assertThat(send().tcp.getPort()).as("the pooled connection, reused").isEqualTo(first.tcp.getPort());
        assertThat(engine.closedWhileIdle).isEmpty();
    }

    @Test
    void twoClustersAtOneHostAndPortWithOtherCertificates_neverShareAConnection_removingOneClosesOnlyItsOwn()
            throws Exception {
        String eastA =
                cluster("east-a", engine.url(), tls(pki.caFile(), clientA)).replace("demo-model", "model-a");
        String eastB =
                cluster("east-b", engine.url(), tls(pki.caFile(), clientB)).replace("demo-model", "model-b");
        write("", eastA + eastB);
        gateway = GatewayHarness.fromFile(file);
        ScriptedUpstream.Exchange a = send("model-a");
        ScriptedUpstream.Exchange b = send("model-b");
        for (int i = 0; i < 3; i++) {
            ScriptedUpstream.Exchange nextA = send("model-a");
            ScriptedUpstream.Exchange nextB = send("model-b");
            assertThat(nextA.tcp.getPort()).isEqualTo(a.tcp.getPort());
            assertThat(nextB.tcp.getPort()).isEqualTo(b.tcp.getPort());
            assertThat(nextA.clientCertificate()).isEqualTo(clientA.certificate());
            assertThat(nextB.clientCertificate()).isEqualTo(clientB.certificate());
        }

        rewrite(eastA);

        awaitClosed(b);
        assertThat(send("model-a").tcp.getPort()).isEqualTo(a.tcp.getPort());
        assertThat(engine.closedWhileIdle).containsExactly(b.tcp);
    }

    @Test
    void clientCertificateRotatedWhileAnAnswerIsInFlight_thatConnectionClosedAtItsEnd_neverPooled() throws Exception {
        ScriptedUpstream.Exchange first = startAndSend(cluster("east-a", engine.url(), tls(pki.caFile(), clientA)));
        CountDownLatch reloaded = new CountDownLatch(1);
        ScriptedUpstream.Script answers = engine.script;
        engine.script = e -> {
            reloaded.await(10, TimeUnit.SECONDS);
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
        };
        CompletableFuture<HttpResponse<String>> inFlight = gateway.client.sendAsync(
                HttpRequest.newBuilder(gateway.uri("/v1/chat/completions"))
                        .header("Content-Type", "application/json")
                        .timeout(GatewayHarness.DEADLINE)
                        .POST(HttpRequest.BodyPublishers.ofString(CHAT))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        ScriptedUpstream.Exchange carrying = engine.take();
        assertThat(carrying.tcp.getPort()).isEqualTo(first.tcp.getPort());

        rewrite(cluster("east-a", engine.url(), tls(pki.caFile(), clientB)));
        engine.script = answers;
        reloaded.countDown();

        assertThat(inFlight.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        awaitClosed(carrying);
        ScriptedUpstream.Exchange next = send();
        assertThat(next.tcp.getPort()).isNotEqualTo(carrying.tcp.getPort());
        assertThat(next.clientCertificate()).isEqualTo(clientB.certificate());
    }

    /** An https engine with a certificate of the test CA that asks for a client certificate. */
    private ScriptedUpstream engineServing() {
        ScriptedUpstream made = new ScriptedUpstream(pki.context(pki.issue("engine")));
        made.wantsClientCertificate = true;
        return made;
    }

    private ScriptedUpstream.Exchange startAndSend(String clusters) throws Exception {
        write("", clusters);
        gateway = GatewayHarness.fromFile(file);
        return send();
    }

    /** One request answered 200; the exchange it came to the engine in. */
    private ScriptedUpstream.Exchange send() throws Exception {
        return send("demo-model");
    }

    /** One request for {@code model} answered 200; the exchange it came to the engine in. */
    private ScriptedUpstream.Exchange send(String model) throws Exception {
        assertThat(gateway.post("/v1/chat/completions", CHAT.replace("demo-model", model))
                        .statusCode())
                .isEqualTo(200);
        return engine.take();
    }

    private void rewrite(String clusters) throws Exception {
        write("", clusters);
        gateway.server.reloadNow();
    }

    private void write(String gatewayExtra, String clusters) throws Exception {
        Files.writeString(file, GatewayHarness.config(gatewayExtra, "  - name: east\n    clusters:\n" + clusters));
    }

    /** Waits until the gateway closed {@code exchange}'s connection while the engine awaited its next request. */
    private void awaitClosed(ScriptedUpstream.Exchange exchange) {
        GatewayHarness.await(
                "the gateway closes the connection made under the config before",
                CLOSED_WITHIN,
                () -> engine.closedWhileIdle.contains(exchange.tcp));
    }

    private static String cluster(String name, String url, String tls) {
        return "      - name: " + name + "\n        url: " + url
                + "\n        metrics_url: http://127.0.0.1:1/metrics\n        models: [demo-model]\n" + tls;
    }

    /** A cluster's {@code tls} block (indented eight spaces) trusting {@code ca} and showing {@code client}. */
    private static String tls(Path ca, TestPki.Pair client) {
        return "        tls:\n          ca_file: " + ca + "\n          cert_file: " + client.cert()
                + "\n          key_file: " + client.key() + "\n";
    }
}
