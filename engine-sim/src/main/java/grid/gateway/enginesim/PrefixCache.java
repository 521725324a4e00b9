package grid.gateway.enginesim;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The simulated engine's prefix cache: a least-recently-used set of at most {@code capacity} block hashes
 * (docs/design.md §A6.3). A request first counts how many of its leading blocks are cached (its cache hit, which
 * touches them), then stores all its full blocks, evicting the least recently used beyond capacity. A capacity of
 * zero caches nothing.
 *
 * <p>Thread-safe: one lock around an access-ordered {@link LinkedHashMap}.
 */
final class PrefixCache {
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<Long, Boolean> blocks;

    PrefixCache(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: >= 0)");
        }
        this.capacity = capacity;
        this.blocks = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > PrefixCache.this.capacity;
            }
        };
    }

    /** Looks {@code prompt} up and stores its blocks; returns the cached tokens of the hit. */
    int admit(PromptBlocks prompt) {
        lock.lock();
        try {
            int hit = 0;
            while (hit < prompt.maxHitBlocks() && blocks.get(prompt.hash(hit)) != null) {
                hit++;
            }
            for (int i = 0; i < prompt.size(); i++) {
                blocks.put(prompt.hash(i), Boolean.TRUE);
            }
            // Whole blocks only: the partial last block of a prompt is never cached (vLLM reports the same).
            return hit * prompt.blockTokens();
        } finally {
            lock.unlock();
        }
    }

    /** Forgets every block (as vLLM's {@code /reset_prefix_cache}, or a cache that evicted everything). */
    void clear() {
        lock.lock();
        try {
            blocks.clear();
        } finally {
            lock.unlock();
        }
    }

    /** Blocks held. */
    int size() {
        lock.lock();
        try {
            return blocks.size();
        } finally {
            lock.unlock();
        }
    }

    int capacity() {
        return capacity;
    }
}
