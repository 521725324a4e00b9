package grid.gateway.app.http;

/**
 * Every {@link LeftoverBytesIntegrationTest} again with the engine behind TLS (a private CA in
 * {@code gateway.upstream.tls.ca_file}): the leftover comes in a TLS record of its own, read only as the next
 * request's answer. Certificates are made for the run.
 */
class LeftoverBytesOverTlsIntegrationTest extends LeftoverBytesIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
