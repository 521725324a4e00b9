package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The outcome of sending one request to one backend cluster.
 *
 * <p>Thread-safe (immutable), except the answer, which belongs to the calling thread.
 */
public sealed interface Attempt {
    /**
     * Whether the request was sent a second time, on a new connection, because the reused one it went out on failed
     * before any byte of its answer (docs/design.md §H18).
     */
    boolean retried();

    /**
     * The cluster answered with a final status line and headers.
     *
     * @param answer the answer; the caller reads and closes it
     * @param toHeaders time from sending to the response headers
     * @param retried sent again on a new connection after a reused one failed
     */
    record Answered(UpstreamAnswer answer, Duration toHeaders, boolean retried) implements Attempt {
        public Answered {
            requireNonNull(answer, "answer");
            requireNonNull(toHeaders, "toHeaders");
        }
    }

    /**
     * No final response headers: {@link UpstreamFailure#CONNECT} means nothing was sent, so another cluster may be
     * tried; after any other failure the request may have started work and is not sent again.
     *
     * @param failure why
     * @param retried sent again on a new connection after a reused one failed, and that failed too
     */
    record Failed(UpstreamFailure failure, boolean retried) implements Attempt {
        public Failed {
            requireNonNull(failure, "failure");
        }
    }
}
