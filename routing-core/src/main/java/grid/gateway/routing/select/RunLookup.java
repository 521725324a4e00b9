package grid.gateway.routing.select;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;

/**
 * Where selection learns a cluster's run: the number of the request's leading blocks it holds, in order, and how long
 * the cluster keeps a prefix nobody reuses. The prefix memory in production.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface RunLookup {
    /** The run of {@code keys} at {@code cluster}. */
    int run(ClusterId cluster, BlockKeys keys);

    /**
     * How long {@code cluster} keeps a prefix nobody reuses, nanoseconds; {@code Long.MAX_VALUE} (the default): no sign
     * that it evicts anything.
     */
    default long retentionNanos(ClusterId cluster) {
        return Long.MAX_VALUE;
    }
}
