package grid.gateway.app.forward;

import java.util.OptionalLong;

/**
 * What the kernel tells of a client's progress in taking its answer: the bytes written to the client's connection that
 * the client has not acknowledged yet. While a write to the client is blocked, nothing adds to them, so they shrink
 * exactly when the client takes bytes; a blocked write cannot tell that by itself, since the kernel wakes a blocked
 * writer only once a third of the socket's send buffer (up to megabytes) is free again (docs/design.md §H19).
 *
 * <p>Implementations are thread-safe: asked from the alarm's scheduler.
 */
@FunctionalInterface
public interface ClientProgress {
    /** Knows nothing: a blocked write is then timed from its start, as if the client took nothing meanwhile. */
    ClientProgress NONE = freshNanos -> OptionalLong.empty();

    /**
     * The client connection's unacknowledged bytes as the kernel told them at most {@code freshNanos} ago (a reading
     * may serve several connections), or empty when they cannot be read.
     */
    OptionalLong unacknowledged(long freshNanos);
}
