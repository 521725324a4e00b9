package grid.gateway.app.http;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;

/** Every {@link ConnectionReuseIntegrationTest} again with the engine behind TLS. */
class ConnectionReuseOverTlsIntegrationTest extends ConnectionReuseIntegrationTest {
    private TestPki pki;

    @Override
    ScriptedUpstream upstream() throws IOException {
        pki = TestPki.create(dir, "engines");
        return new ScriptedUpstream(pki.context(pki.issue("engine")));
    }

    @Override
    String tls() {
        return "    tls:\n      ca_file: " + pki.caFile() + "\n";
    }
}
