package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.select.RunLookup;

/**
 * Selection's view of the prefix memory: each cluster's run of a request and how long it keeps a prefix.
 *
 * <p>Thread-safe, as the memory is.
 *
 * @param memory the prefix memory
 */
record MemoryRuns(PrefixMemory memory) implements RunLookup {
    MemoryRuns {
        requireNonNull(memory, "memory");
    }

    @Override
    public int run(ClusterId cluster, BlockKeys keys) {
        return memory.run(cluster, keys);
    }

    @Override
    public long retentionNanos(ClusterId cluster) {
        return memory.retentionNanos(cluster);
    }
}
