package grid.gateway.app.http;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;
import java.net.Socket;

/**
 * {@link ClientRequestsPropertyTest} on the gateway's TLS listener: the same generated requests read from TLS records,
 * a client's close sent as its close_notify, a reset under TLS. Fewer trials: each connection costs a handshake.
 */
class ClientRequestsOverTlsPropertyTest extends ClientRequestsPropertyTest {
    private TestPki pki;

    @Override
    String config(String oneEngine) {
        pki = TestPki.create(dir, "client-tls");
        TestPki.Pair listener = pki.issue("gateway");
        return super.config(oneEngine).replace("server:\n", "server:\n" + listener.serverTls());
    }

    @Override
    Socket connect(int port) throws IOException {
        return pki.trustOnly().getSocketFactory().createSocket("127.0.0.1", port);
    }

    @Override
    boolean tls() {
        return true;
    }

    @Override
    int trialCount() {
        return 150;
    }
}
