package grid.gateway.app.http;

/**
 * {@link UpstreamAnswersPathsPropertyTest} with the engine behind TLS: the same generated answers read from TLS
 * records, an answer ending with the connection ended by the engine's close_notify, a reset under TLS. Fewer trials:
 * each new connection costs a handshake.
 */
class UpstreamAnswersPathsOverTlsPropertyTest extends UpstreamAnswersPathsPropertyTest {
    @Override
    EngineTransport transport() {
        return EngineTransport.tls(dir);
    }

    @Override
    int trialCount() {
        return 250;
    }

    /** One path a way of relaying: each path's trials are few enough as it is. */
    @Override
    ApiPath[] paths() {
        return ApiPath.ONE_PER_RELAY;
    }

    @Override
    boolean resendsSeen() {
        return false;
    }
}
