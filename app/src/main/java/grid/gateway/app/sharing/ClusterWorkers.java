package grid.gateway.app.sharing;

import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;

/**
 * Which apply worker each known cluster's entries go to ({@link PeerAppliers}): the clusters in key order, dealt round
 * the workers, so every replica of one build deals the same grid the same way.
 *
 * <p>A reload can deal a cluster to another worker (a cluster added before it in key order shifts it). Entries of
 * that cluster already queued on its old worker must be applied before any goes to the new one, or a drop could be
 * applied before the confirmation it follows: {@link #moves} says when the reader has to let the workers drain first.
 *
 * <p>Immutable.
 */
record ClusterWorkers(Map<String, Integer> workerOf) {
    /** No cluster known yet. */
    static final ClusterWorkers NONE = new ClusterWorkers(Map.of());

    ClusterWorkers {
        workerOf = Map.copyOf(workerOf);
    }

    /** The clusters {@code keys} dealt round {@code threads} workers, in key order. */
    static ClusterWorkers deal(SortedSet<String> keys, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        Map<String, Integer> workers = new HashMap<>();
        for (String key : keys) {
            workers.put(key, workers.size() % threads);
        }
        return new ClusterWorkers(workers);
    }

    /** The worker of the cluster {@code key}; worker 0 for a cluster not known (its entries are counted there). */
    int of(String key) {
        Integer worker = workerOf.get(key);
        return worker == null ? 0 : worker;
    }

    /** True when a cluster known to both this dealing and {@code next} has another worker in {@code next}. */
    boolean moves(ClusterWorkers next) {
        for (Map.Entry<String, Integer> known : workerOf.entrySet()) {
            Integer after = next.workerOf.get(known.getKey());
            if (after != null && !after.equals(known.getValue())) {
                return true;
            }
        }
        return false;
    }
}
