package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.tls.TestPki;
import grid.gateway.enginesim.EngineSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every admin connection held by a client that sends nothing, or stops inside its request line: the header deadline
 * starts only once a request line is read, and Helidon's own sweep of idle connections waits five minutes, so 128 such
 * connections (the admin listener's cap) kept the health probes unanswered for minutes, and a liveness probe that
 * fails restarts the gateway. Each is closed once it has waited {@code server.header_timeout_ms} for a request, and a
 * probe queued behind them is answered.
 */
class AdminHeldConnectionsIntegrationTest {
    /** The admin listener's connection cap ({@code Listeners.ADMIN_CONNECTIONS}). */
    private static final int ADMIN_CONNECTIONS = 128;

    @TempDir
    Path dir;

    private final EngineSimulator east = GatewayHarness.engine("east-a");
    private final List<RawHttp> held = new ArrayList<>();
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        held.forEach(RawHttp::close);
        if (gateway != null) {
            gateway.close();
        }
        east.close();
    }

    @Test
    void everyAdminConnectionHeldIdleOrInItsRequestLine_closedAtTheHeaderTimeout_aProbeBehindThemAnswered() {
        gateway = new GatewayHarness(
                dir, GatewayHarness.config("  header_timeout_ms: 1000\n", "", GatewayHarness.oneEngine(east.url())));
        int admin = gateway.server.adminPort();
        for (int i = 0; i < ADMIN_CONNECTIONS; i++) {
            RawHttp connection = new RawHttp(admin);
            // Half send nothing at all, half stop inside the request line (no header deadline runs yet).
            held.add(i % 2 == 0 ? connection : connection.send("GET /health/li"));
        }

        try (RawHttp probe = new RawHttp(admin).send("GET /health/live HTTP/1.1\r\nHost: gw\r\n\r\n")) {
            RawHttp.Reply reply = probe.readResponses(1);

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.body()).isEqualTo("live\n");
        }
        assertThat(held)
                .allSatisfy(connection ->
                        assertThat(connection.closedWithin(10_000)).isTrue());
    }

    @Test
    void everyAdminTlsConnectionHeldBeforeOrInItsHandshake_closedAtTheHeaderTimeout_aProbeBehindThemAnswered()
            throws Exception {
        TestPki pki = TestPki.create(dir, "admin");
        TestPki.Pair pair = pki.issue("gateway-admin");
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(
                        """
                          header_timeout_ms: 1000
                          admin_tls:
                            cert_file: %s
                            key_file: %s
                        """.formatted(pair.cert(), pair.key()), "", GatewayHarness.oneEngine(east.url())));
        int admin = gateway.server.adminPort();
        for (int i = 0; i < ADMIN_CONNECTIONS; i++) {
            RawHttp connection = new RawHttp(admin);
            // Half send nothing, half stop inside the first record of a handshake.
            held.add(i % 2 == 0 ? connection : connection.send(new byte[] {0x16, 0x03, 0x01, 0x02}));
        }

        try (HttpClient client = GatewayHarness.client(Optional.of(pki.trustOnly()))) {
            HttpResponse<String> live = client.send(
                    HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + admin + "/health/live"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(live.statusCode()).isEqualTo(200);
        }
        assertThat(held)
                .allSatisfy(connection ->
                        assertThat(connection.closedWithin(10_000)).isTrue());
    }
}
