package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;

/**
 * A TLS 1.2 engine that renegotiates on a pooled connection after it took a request, asking for a client certificate
 * the gateway does not have: the renegotiation fails with a handshake exception as the gateway reads the answer. That
 * is no refused handshake of a new connection (where nothing ran, and another cluster may be tried): the engine took
 * the request, so it is never sent again, and the client gets the gateway's 502. The engine is listed as two clusters
 * (one origin), so a request taken for never sent would reach it again through the other.
 */
class TlsRenegotiationIntegrationTest extends BehindAFreshGateway {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }

    /** The engine listed as two clusters of one origin. */
    @Override
    String sites(String url) {
        return GatewayHarness.oneSite(url, url);
    }

    @Test
    void handshakeFailingOnAReusedConnection_afterTheEngineTookTheRequest_502_notSentAgain() throws Exception {
        engine.tlsProtocols = new String[] {"TLSv1.2"};
        // The engine's fatal alert leaves its TCP connection open until the gateway closes it: the gateway, still
        // writing its side of the handshake, then reads the alert, not a reset.
        engine.tlsClosesTcp = false;
        engine.script = e -> {
            if (!UpstreamAnswersIntegrationTest.who(e).equals("B")) {
                e.write(UpstreamAnswersIntegrationTest.ok(UpstreamAnswersIntegrationTest.body("A")));
                return;
            }
            SSLSocket tls = (SSLSocket) e.socket;
            tls.setNeedClientAuth(true);
            tls.startHandshake(); // a HelloRequest: the gateway's reply is read below, and refused
            try {
                e.in.read();
            } catch (IOException refused) {
                // The handshake failed here too: the engine's alert is on its way to the gateway.
            }
            try (java.net.Socket tcp = e.tcp) {
                while (tcp.getInputStream().read() >= 0) {
                    // What the gateway still writes of its handshake, until it closes the connection.
                }
            }
        };

        assertThat(ask("A").status()).isEqualTo(200);
        RawClient.Answer b = ask("B");

        assertThat(engine.exchanges.stream()
                        .filter(e -> UpstreamAnswersIntegrationTest.who(e).equals("B")))
                .as("B reached the engine once")
                .hasSize(1);
        assertThat(b.status()).isEqualTo(502);
        assertThat(b.body()).contains("\"type\":\"server_error\"");
        assertThat(errors("connect")).isZero();
        assertThat(errors("reset")).isEqualTo(1.0);
        assertThat(ask("C").status()).isEqualTo(200);
    }

    /** {@code grid_upstream_errors_total} of {@code kind}, summed over the two clusters. */
    private double errors(String kind) {
        return gateway.metrics()
                .lines()
                .filter(line ->
                        line.startsWith("grid_upstream_errors_total{") && line.contains("kind=\"" + kind + "\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private RawClient.Answer ask(String who) throws IOException {
        try (RawClient client = new RawClient(gateway.server.port())) {
            client.post("/v1/chat/completions", UpstreamAnswersIntegrationTest.chat(who));
            return client.read();
        }
    }
}
