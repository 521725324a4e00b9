package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of sending one request to one backend cluster.
 *
 * <p>Thread-safe (immutable), except the answer, which belongs to the calling thread.
 */
public sealed interface Attempt {
    /**
     * Why the request was sent a second time, on a new connection, when it was: the reused one it went out on failed
     * before any byte of its answer, or began with what is no answer to it (docs/design.md §H18).
     */
    Optional<Retry> retried();

    /**
     * Why the request was sent again, and the cluster the retry is counted against: the request's, or, for an
     * {@link RetryReason#OUT_OF_STEP} connection, the cluster whose answer left the bytes it began with.
     */
    record Retry(RetryReason reason, ClusterId cluster) {
        public Retry {
            requireNonNull(reason, "reason");
            requireNonNull(cluster, "cluster");
        }
    }

    /**
     * The cluster answered with a final status line and headers.
     *
     * @param answer the answer; the caller reads and closes it
     * @param toHeaders time from sending to the response headers
     * @param retry why it was sent again on a new connection after a reused one failed; null when it was not
     */
    record Answered(
            UpstreamAnswer answer,
            Duration toHeaders,
            @Nullable Retry retry) implements Attempt {
        public Answered {
            requireNonNull(answer, "answer");
            requireNonNull(toHeaders, "toHeaders");
        }

        @Override
        public Optional<Retry> retried() {
            return Optional.ofNullable(retry);
        }
    }

    /**
     * No final response headers: {@link UpstreamFailure#CONNECT} means nothing was sent, so another cluster may be
     * tried; after any other failure the request may have started work and is not sent again.
     *
     * @param failure why
     * @param retry why it was sent again on a new connection after a reused one failed, and that failed too; null
     *     when it was not
     */
    record Failed(UpstreamFailure failure, @Nullable Retry retry) implements Attempt {
        public Failed {
            requireNonNull(failure, "failure");
        }

        @Override
        public Optional<Retry> retried() {
            return Optional.ofNullable(retry);
        }
    }
}
