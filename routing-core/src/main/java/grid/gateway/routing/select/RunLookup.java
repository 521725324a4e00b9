package grid.gateway.routing.select;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;

/**
 * Where selection learns a cluster's run: the number of the request's leading blocks it holds, in order.
 * {@code PrefixMemory::run} in production.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface RunLookup {
    /** The run of {@code keys} at {@code cluster}. */
    int run(ClusterId cluster, BlockKeys keys);
}
