package grid.gateway.app.http;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;

/**
 * Every {@link LeftoverBytesIntegrationTest} again with the engine behind TLS (a private CA in
 * {@code gateway.upstream.tls.ca_file}): the leftover comes in a TLS record of its own, read only as the next
 * request's answer. Certificates are made for the run.
 */
class LeftoverBytesOverTlsIntegrationTest extends LeftoverBytesIntegrationTest {
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
