package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import io.helidon.webclient.http1.Http1ClientResponse;
import java.time.Duration;

/**
 * The outcome of sending one request to one backend cluster.
 *
 * <p>Thread-safe (immutable), except the response, which belongs to the calling thread.
 */
public sealed interface Attempt {
    /**
     * The cluster answered with a status line and headers.
     *
     * @param response the answer; the caller reads and closes it
     * @param toHeaders time from sending to the response headers
     */
    record Answered(Http1ClientResponse response, Duration toHeaders) implements Attempt {
        public Answered {
            requireNonNull(response, "response");
            requireNonNull(toHeaders, "toHeaders");
        }
    }

    /** No connection could be made: nothing was sent, so another cluster may be tried. */
    record ConnectFailed() implements Attempt {}

    /** The cluster did not answer within the first-byte timeout: answer 504. */
    record TimedOut() implements Attempt {}

    /** The connection broke after the request was sent (reset, malformed answer): answer 502. */
    record Broken() implements Attempt {}
}
