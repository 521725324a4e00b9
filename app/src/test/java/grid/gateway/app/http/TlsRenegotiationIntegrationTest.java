package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.RepeatedTest;
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
        // The engine's fatal alert leaves its TCP connection open until the gateway closes it: the gateway, still
        // writing its side of the handshake, then reads the alert, not a reset.
        renegotiationRefused(false);
    }

    /**
     * The engine closes its TCP connection with its alert: the gateway, writing its side of the handshake, meets a
     * broken pipe, no handshake failure, and the connection was reused with no byte of an answer, as a stale one is.
     * The engine took the request all the same (it began the handshake after), so it is not sent again: it was, and
     * reached the engine twice. Whether the gateway reads the alert or meets the closed connection first is the
     * kernel's race, so the case runs ten times: each way must answer 502 once (before the fix, about half failed).
     */
    @RepeatedTest(10)
    void handshakeRefusedAndTcpClosed_brokenPipeWritingTheHandshake_502_notSentAgainAsStale() throws Exception {
        renegotiationRefused(true);
    }

    private void renegotiationRefused(boolean closesTcp) throws Exception {
        engine.tlsProtocols = new String[] {"TLSv1.2"};
        engine.tlsClosesTcp = closesTcp;
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
        assertThat(sum("grid_upstream_retries_total{", "")).isZero();
        assertThat(ask("C").status()).isEqualTo(200);
    }

    /** {@code grid_upstream_errors_total} of {@code kind}, summed over the two clusters. */
    private double errors(String kind) {
        return sum("grid_upstream_errors_total{", "kind=\"" + kind + "\"");
    }

    /** The samples of the series that begin with {@code head} and hold {@code label}, summed. */
    private double sum(String head, String label) {
        return gateway.metrics()
                .lines()
                .filter(line -> line.startsWith(head) && line.contains(label))
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
