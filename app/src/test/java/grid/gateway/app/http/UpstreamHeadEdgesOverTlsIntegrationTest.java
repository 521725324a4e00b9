package grid.gateway.app.http;

/**
 * Every {@link UpstreamHeadEdgesIntegrationTest} again with the engine behind TLS: the same heads, read from TLS
 * records. Certificates are made for the run.
 */
class UpstreamHeadEdgesOverTlsIntegrationTest extends UpstreamHeadEdgesIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
