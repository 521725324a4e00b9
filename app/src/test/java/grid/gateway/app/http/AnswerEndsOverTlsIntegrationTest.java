package grid.gateway.app.http;

/**
 * Every {@link AnswerEndsIntegrationTest} again with the engine behind TLS: an engine that ends its side after an
 * answer sends its close_notify (the TCP connection left open), or ends its TCP connection without one; either is
 * found before the connection is reused.
 */
class AnswerEndsOverTlsIntegrationTest extends AnswerEndsIntegrationTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }
}
