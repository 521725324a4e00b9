package grid.gateway.app.forward;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one claim a client connection has on being counted as cut for its send timeout. Two watches may cut the same
 * stalled client at the same moment: the relay's own alarm ({@link ClientCut}) and the listener's send watch of every
 * write. Either cut closes the connection, so a connection times out at most once; whichever claims first counts it
 * in {@code grid_client_send_timeouts_total}, the other counts nothing.
 *
 * <p>Thread-safe: claimed from the relay's thread and from the watch's sweep.
 */
@FunctionalInterface
public interface SendTimeoutClaim {
    /** Whether this call is the first claim: true once, false ever after. */
    boolean claim();

    /** Runs {@code count} when, and only when, it is the first to claim (the relay's cut counts through this). */
    default Runnable counting(Runnable count) {
        return () -> {
            if (claim()) {
                count.run();
            }
        };
    }

    /** A claim of its own, for a connection no other watch can reach. */
    static SendTimeoutClaim once() {
        AtomicBoolean claimed = new AtomicBoolean();
        return () -> claimed.compareAndSet(false, true);
    }
}
