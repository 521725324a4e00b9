package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class EngineCacheTest {
    @Test
    void store_beyondCapacity_evictsTheLeastRecent() {
        EngineCache cache = new EngineCache(3);
        cache.store(new long[] {1, 2, 3}, 3);

        cache.store(new long[] {4}, 1);

        assertThat(cache.size()).isEqualTo(3);
        // Stored tail first, so 3 was the least recent of the first sequence.
        assertThat(cache.lookup(new long[] {1, 2, 3}, 3, false)).isEqualTo(2);
        assertThat(cache.lookup(new long[] {4}, 1, false)).isEqualTo(1);
    }

    @Test
    void lookup_countsLeadingBlocksOnly() {
        EngineCache cache = new EngineCache(10);
        cache.store(new long[] {1, 2, 3}, 3);

        assertThat(cache.lookup(new long[] {1, 2, 9, 3}, 4, false)).isEqualTo(2);
        assertThat(cache.lookup(new long[] {9, 1, 2}, 3, false)).isZero();
        assertThat(cache.lookup(new long[] {1, 2, 3}, 2, false)).isEqualTo(2);
    }

    @Test
    void lookup_touching_refreshesSoOthersGoFirst() {
        EngineCache cache = new EngineCache(2);
        cache.store(new long[] {1}, 1);
        cache.store(new long[] {2}, 1);

        cache.lookup(new long[] {1}, 1, true);
        cache.store(new long[] {3}, 1);

        assertThat(cache.lookup(new long[] {1}, 1, false)).isEqualTo(1);
        assertThat(cache.lookup(new long[] {2}, 1, false)).isZero();
    }

    @Test
    void lookup_peeking_doesNotRefresh() {
        EngineCache cache = new EngineCache(2);
        cache.store(new long[] {1}, 1);
        cache.store(new long[] {2}, 1);

        cache.lookup(new long[] {1}, 1, false);
        cache.store(new long[] {3}, 1);

        assertThat(cache.lookup(new long[] {1}, 1, false)).isZero();
    }
}
