package grid.gateway.app.http;

/**
 * Every {@link UpstreamAnswersIntegrationTest} again with the engine behind TLS (a private CA in
 * {@code gateway.upstream.tls.ca_file}): bytes past an answer are found whether they wait in the socket or were
 * decrypted with the answer's last record and held by the TLS socket. Certificates are made for the run.
 */
class UpstreamAnswersOverTlsIntegrationTest extends UpstreamAnswersIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
