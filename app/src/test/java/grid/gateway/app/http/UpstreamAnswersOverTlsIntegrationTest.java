package grid.gateway.app.http;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;

/**
 * Every {@link UpstreamAnswersIntegrationTest} again with the engine behind TLS (a private CA in
 * {@code gateway.upstream.tls.ca_file}): bytes past an answer are found whether they wait in the socket or were
 * decrypted with the answer's last record and held by the TLS socket. Certificates are made for the run.
 */
class UpstreamAnswersOverTlsIntegrationTest extends UpstreamAnswersIntegrationTest {
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
