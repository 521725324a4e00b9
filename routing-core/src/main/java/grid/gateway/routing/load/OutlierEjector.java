package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Outlier ejection (docs/design.md §6): a backend cluster that fails {@value #CONSECUTIVE_CONNECT_FAILURES} connection
 * attempts in a row is ejected for {@link #EJECTION_PERIOD} (10 s), during which it admits no request.
 *
 * <pre>
 * healthy --failure--&gt; 1 --failure--&gt; 2 --failure--&gt; ejected at t (count back to 0)
 *    ^                  |              |                   |
 *    +----- answer -----+--------------+                   | t + 10 s: admitted again, count 0,
 *    +-----------------------------------------------------+ so the next ejection takes 3 more failures
 * </pre>
 *
 * <ul>
 *   <li>Any answer from the cluster (whatever its status) resets the count of consecutive failures.
 *   <li>The ejection covers readings {@code t} through {@code t + 10 s - 1 ns}; at exactly {@code t + 10 s} the
 *       cluster is admitted again. A caller whose reading is a little before {@code t} (it read the clock before
 *       another thread recorded the third failure) is told the cluster is ejected.
 *   <li>Failures recorded while the cluster is ejected (requests that were already in flight) are not counted and
 *       do not extend the ejection; answers recorded meanwhile do not end it early. When it ends the count restarts
 *       from zero, so it takes 3 further consecutive failures to eject the cluster again.
 * </ul>
 *
 * <p>Thread-safe: a {@link ConcurrentHashMap} from cluster to an {@link AtomicReference} holding that cluster's
 * immutable state, changed only by compare-and-set, so concurrent failures and answers are each counted once and
 * readers never block.
 */
public final class OutlierEjector {
    /** Consecutive connect failures that eject a cluster (docs/design.md §6). */
    public static final int CONSECUTIVE_CONNECT_FAILURES = 3;

    /** How long an ejected cluster admits no request (docs/design.md §6). */
    public static final Duration EJECTION_PERIOD = Duration.ofSeconds(10);

    private static final long EJECTION_PERIOD_NANOS = EJECTION_PERIOD.toNanos();

    private final ConcurrentMap<ClusterId, AtomicReference<Health>> clusters = new ConcurrentHashMap<>();
    /** The URL of each cluster of the grid in force, once {@link #reconfigure} was called: whose failures count. */
    private volatile Map<ClusterId, URI> urls = Map.of();

    /** An ejector in which every cluster starts healthy. */
    public OutlierEjector() {}

    /** Counts a failure to connect to {@code cluster} at {@code nowNanos}; the third in a row ejects it. */
    public void recordConnectFailure(ClusterId cluster, long nowNanos) {
        requireNonNull(cluster, "cluster");
        AtomicReference<Health> health = clusters.get(cluster);
        if (health == null) {
            health = clusters.computeIfAbsent(cluster, id -> new AtomicReference<>(Health.HEALTHY));
        }
        health.updateAndGet(state -> state.afterConnectFailure(nowNanos));
    }

    /**
     * Counts a failure to connect to {@code cluster} at its URL: as {@link #recordConnectFailure(ClusterId, long)},
     * unless a reload moved the cluster to another URL since the attempt began. A request still in flight to the URL
     * the cluster left says nothing of the one it has now.
     */
    public void recordConnectFailure(BackendCluster cluster, long nowNanos) {
        URI now = urls.get(cluster.id());
        if (now == null || now.equals(cluster.url())) {
            recordConnectFailure(cluster.id(), nowNanos);
        }
    }

    /** Notes an answer from {@code cluster}, whatever its status: the count of consecutive failures restarts. */
    public void recordSuccess(ClusterId cluster) {
        requireNonNull(cluster, "cluster");
        AtomicReference<Health> health = clusters.get(cluster);
        if (health != null) {
            health.updateAndGet(Health::afterAnswer);
        }
    }

    /** Whether {@code cluster} is ejected at {@code nowNanos}. */
    public boolean isEjected(ClusterId cluster, long nowNanos) {
        requireNonNull(cluster, "cluster");
        AtomicReference<Health> health = clusters.get(cluster);
        return health != null && health.get().isEjectedAt(nowNanos);
    }

    /** Forgets every cluster not in {@code live}, typically the clusters of the grid after a reload. */
    public void retain(Set<ClusterId> live) {
        requireNonNull(live, "live");
        clusters.keySet().retainAll(live);
    }

    /**
     * Follows the grid after a reload: forgets every cluster not in {@code grid}, and every cluster whose URL changed,
     * whose failures and ejection were those of the URL it left (an operator who moves a dead cluster to a working
     * URL has it admitted at once, not after the rest of an ejection).
     */
    public void reconfigure(List<BackendCluster> grid) {
        Map<ClusterId, URI> next = new HashMap<>();
        grid.forEach(cluster -> next.put(cluster.id(), cluster.url()));
        Map<ClusterId, URI> before = urls;
        urls = Map.copyOf(next);
        clusters.keySet()
                .removeIf(id -> !next.containsKey(id)
                        || (before.containsKey(id) && !before.get(id).equals(next.get(id))));
    }

    /** The consecutive failures counted for {@code cluster}; for tests. */
    int consecutiveFailures(ClusterId cluster) {
        AtomicReference<Health> health = clusters.get(cluster);
        return health == null ? 0 : health.get().consecutiveFailures();
    }

    /** How many clusters have an entry; for tests of {@link #retain}. */
    int trackedClusters() {
        return clusters.size();
    }

    /**
     * One cluster's state. Immutable. Invariant: the count is 0 whenever {@code ejected} is set, since an ejection
     * restarts it.
     *
     * @param consecutiveFailures connect failures since the last answer or ejection
     * @param ejected whether an ejection was recorded (it may have ended since; see {@link #isEjectedAt})
     * @param ejectedAtNanos the reading at the ejection, when {@code ejected}
     */
    private record Health(int consecutiveFailures, boolean ejected, long ejectedAtNanos) {
        static final Health HEALTHY = new Health(0, false, 0L);

        boolean isEjectedAt(long nowNanos) {
            return ejected && nowNanos - ejectedAtNanos < EJECTION_PERIOD_NANOS;
        }

        Health afterConnectFailure(long nowNanos) {
            if (isEjectedAt(nowNanos)) {
                return this;
            }
            int failures = (ejected ? 0 : consecutiveFailures) + 1;
            return failures >= CONSECUTIVE_CONNECT_FAILURES
                    ? new Health(0, true, nowNanos)
                    : new Health(failures, false, 0L);
        }

        Health afterAnswer() {
            return consecutiveFailures == 0 ? this : new Health(0, ejected, ejectedAtNanos);
        }
    }
}
