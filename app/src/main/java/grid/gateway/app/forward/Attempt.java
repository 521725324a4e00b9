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

    /**
     * No response headers: {@link UpstreamFailure#CONNECT} means nothing was sent, so another cluster may be tried;
     * after any other failure the request may have started work and is not sent again.
     *
     * @param failure why
     */
    record Failed(UpstreamFailure failure) implements Attempt {
        public Failed {
            requireNonNull(failure, "failure");
        }
    }
}
