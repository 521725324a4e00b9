package grid.gateway.app.http;

/**
 * Every {@link LeftoversFoundIntegrationTest} again with the engine behind TLS: bytes past an answer come decrypted
 * with its end; bytes that arrive while the connection is pooled are closed on but not counted (still encrypted, they
 * cannot be told from the engine's close_notify).
 */
class LeftoversFoundOverTlsIntegrationTest extends LeftoversFoundIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
