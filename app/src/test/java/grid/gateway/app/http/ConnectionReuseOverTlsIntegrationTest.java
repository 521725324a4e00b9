package grid.gateway.app.http;

/** Every {@link ConnectionReuseIntegrationTest} again with the engine behind TLS. */
class ConnectionReuseOverTlsIntegrationTest extends ConnectionReuseIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
