package grid.gateway.app.http;

import grid.gateway.app.tls.TestPki;
import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;

/**
 * Every {@link UpstreamFaultsIntegrationTest} again with the engine behind TLS (a private CA in
 * {@code gateway.upstream.tls.ca_file}): resets, cuts mid-chunk, silences and timeouts are told apart over TLS as over
 * plain TCP. Certificates are made for the run.
 */
class UpstreamFaultsOverTlsIntegrationTest extends UpstreamFaultsIntegrationTest {
    private TestPki pki;
    private TestPki.Pair engine;

    @BeforeEach
    void certificates() {
        pki = TestPki.create(dir, "engines");
        engine = pki.issue("engine");
    }

    @Override
    ScriptedUpstream upstream() throws IOException {
        return new ScriptedUpstream(pki.context(engine));
    }

    @Override
    String tls() {
        return "    tls:\n      ca_file: " + pki.caFile() + "\n";
    }
}
