package grid.gateway.app.sharing;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.time.MonotonicClock;
import java.util.concurrent.TimeUnit;

/**
 * Applies a peer's send ({@code sharing.share_backlog}) to this replica's prefill backlog
 * ({@link PrefillBacklog#peerSent}), on an apply worker. A send older than {@link #MAX_AGE_MILLIS} is not applied
 * (the reader counts it as expired): its prompt is computed by then on any grid the simulator measured, and a warm
 * start's replay (a TTL of history) would otherwise walk every old send.
 *
 * <p>Thread-safe (the backlog is).
 */
final class PeerSends {
    /** Two minutes: above the worst p90 time to first token the simulator measured with replicas alone (56 s). */
    static final long MAX_AGE_MILLIS = 120_000;

    private final PrefillBacklog backlog;
    private final MonotonicClock clock;

    /** Sends applied to {@code backlog}, which runs on {@code clock} (the router's). */
    PeerSends(PrefillBacklog backlog, MonotonicClock clock) {
        this.backlog = backlog;
        this.clock = clock;
    }

    /**
     * Applies {@code entry}, a send to {@code cluster} made {@code ageMillis} ago (wall clocks; a negative age, the
     * two clocks disagreeing, counts as now); false when it is too old, or not a send.
     */
    boolean apply(SharedEntry entry, ClusterId cluster, long ageMillis) {
        if (!entry.isSend() || ageMillis > MAX_AGE_MILLIS) {
            return false;
        }
        return backlog.peerSent(
                cluster, entry.prefillSeconds(), TimeUnit.MILLISECONDS.toNanos(ageMillis), clock.nanoTime());
    }
}
