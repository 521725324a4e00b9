package grid.gateway.sim;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A cluster's true prefix cache: a least-recently-used set of KV block hashes, at most {@code capacityBlocks}.
 *
 * <ul>
 *   <li>{@link #lookup} counts a prompt's leading blocks that are cached (its hit) and, when asked, refreshes them.
 *   <li>{@link #store} keeps a sequence's full blocks, tail first so that its leading blocks are the most recent
 *       and go last (vLLM frees a sequence's blocks tail first), evicting the least recent beyond capacity.
 * </ul>
 *
 * Simplification: blocks of running sequences are not pinned; the capacity is the part of KV memory that holds
 * cached prefixes.
 *
 * <p>Not thread-safe; one per simulated cluster.
 */
public final class EngineCache {
    private final int capacityBlocks;
    private final LinkedHashMap<Long, Boolean> blocks;

    /** An empty cache of {@code capacityBlocks} blocks. */
    public EngineCache(int capacityBlocks) {
        if (capacityBlocks < 0) {
            throw new IllegalArgumentException("capacityBlocks: " + capacityBlocks + " (expected: >= 0)");
        }
        this.capacityBlocks = capacityBlocks;
        this.blocks = new LinkedHashMap<>(Math.min(capacityBlocks, 1 << 16) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > EngineCache.this.capacityBlocks;
            }
        };
    }

    /** How many of the first {@code limit} of {@code hashes} are cached, in order; {@code touch} refreshes them. */
    public int lookup(long[] hashes, int limit, boolean touch) {
        int hit = 0;
        while (hit < limit) {
            boolean held = touch ? blocks.get(hashes[hit]) != null : blocks.containsKey(hashes[hit]);
            if (!held) {
                break;
            }
            hit++;
        }
        return hit;
    }

    /** Stores the first {@code count} of {@code hashes}, tail first. */
    public void store(long[] hashes, int count) {
        for (int i = count - 1; i >= 0; i--) {
            blocks.put(hashes[i], Boolean.TRUE);
        }
    }

    /** Blocks held. */
    public int size() {
        return blocks.size();
    }
}
