package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The prefill this replica has sent each backend cluster and the cluster has not yet worked off, in seconds
 * ({@code load.order_by: expected_wait}). An engine computes prompts one after another on its prefill path, and it
 * exports no gauge of the prompt tokens still to compute: a cluster with free slots that has just taken three 30k-token
 * prompts shows no queue, yet a fourth prompt waits for the three. The gateway knows what it sent: each request adds
 * its uncached tokens ÷ the cluster's prefill rate, and the backlog drains in real time.
 *
 * <pre>
 *   sent(c, s, now)    free(c) = max(free(c), now) + s
 *   seconds(c, now)    max(0, free(c) − now)
 * </pre>
 *
 * <p>What other replicas send is not seen; the scraped queue still counts it once it waits for a slot. Thread-safe and
 * lock-free.
 */
public final class PrefillBacklog {
    private final ConcurrentMap<ClusterId, AtomicLong> freeAtNanos = new ConcurrentHashMap<>();

    /** An empty backlog: every cluster free. */
    public PrefillBacklog() {}

    /** {@code prefillSeconds} of prompt work was sent to {@code cluster} at {@code nowNanos}. */
    public void sent(ClusterId cluster, double prefillSeconds, long nowNanos) {
        requireNonNull(cluster, "cluster");
        if (!(prefillSeconds > 0)) {
            return;
        }
        long work = (long) Math.min(Long.MAX_VALUE / 4.0, prefillSeconds * 1e9);
        freeAtNanos
                .computeIfAbsent(cluster, id -> new AtomicLong(nowNanos))
                .accumulateAndGet(nowNanos, (free, now) -> (free - now > 0 ? free : now) + work);
    }

    /** Seconds of sent prefill {@code cluster} still has to work off at {@code nowNanos}. */
    public double seconds(ClusterId cluster, long nowNanos) {
        AtomicLong free = freeAtNanos.get(requireNonNull(cluster, "cluster"));
        return free == null ? 0 : Math.max(0, free.get() - nowNanos) / 1e9;
    }

    /** Forgets clusters not in {@code live}. */
    public void retain(Set<ClusterId> live) {
        freeAtNanos.keySet().retainAll(requireNonNull(live, "live"));
    }
}
