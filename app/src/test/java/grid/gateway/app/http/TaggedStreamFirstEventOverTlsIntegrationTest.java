package grid.gateway.app.http;

/** {@link TaggedStreamFirstEventIntegrationTest} with the engine behind TLS. */
class TaggedStreamFirstEventOverTlsIntegrationTest extends TaggedStreamFirstEventIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
