package grid.gateway.routing.prefix;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.keyer.BlockKeys;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The LRU against a plain reference model, over long seeded sequences of every operation. */
class ClusterLruTest {
    /** Reference: insertion order of a LinkedHashMap is recency of confirmation. */
    private static final class Model {
        final LinkedHashMap<Long, Long> entries = new LinkedHashMap<>();
        int capacity;

        Model(int capacity) {
            this.capacity = capacity;
        }

        void confirm(long[] keys, long deadline) {
            for (int i = keys.length - 1; i >= 0; i--) {
                entries.remove(keys[i]);
                if (entries.size() == capacity) {
                    entries.remove(entries.keySet().iterator().next());
                }
                entries.put(keys[i], deadline);
            }
        }

        int run(long[] keys, long now) {
            int run = 0;
            while (run < keys.length && entries.containsKey(keys[run]) && entries.get(keys[run]) - now > 0) {
                run++;
            }
            return run;
        }
    }

    @Test
    void randomOperations_matchReferenceModel_andKeepInvariants() {
        SplittableRandom random = new SplittableRandom(20261130);
        for (int round = 0; round < 20; round++) {
            int capacity = 1 + random.nextInt(300);
            ClusterLru lru = new ClusterLru(capacity, random.nextLong());
            Model model = new Model(capacity);
            long now = Long.MAX_VALUE - 1000; // deadlines wrap past Long.MAX_VALUE
            for (int op = 0; op < 3000; op++) {
                long[] keys = random.longs(1 + random.nextInt(20), 0, 600).toArray();
                switch (random.nextInt(6)) {
                    case 0, 1 -> {
                        lru.confirm(BlockKeys.copyOf(keys, keys.length), now, now + 500);
                        model.confirm(keys, now + 500);
                    }
                    case 2 -> {
                        lru.drop(BlockKeys.copyOf(keys, keys.length));
                        for (long key : keys) {
                            model.entries.remove(key);
                        }
                    }
                    case 3 -> {
                        int newCapacity = 1 + random.nextInt(300);
                        lru.resize(newCapacity);
                        model.capacity = newCapacity;
                        while (model.entries.size() > newCapacity) {
                            model.entries.remove(
                                    model.entries.keySet().iterator().next());
                        }
                    }
                    case 4 -> now += random.nextInt(100);
                    default ->
                        assertThat(lru.run(BlockKeys.copyOf(keys, keys.length), now))
                                .isEqualTo(model.run(keys, now));
                }
                lru.checkInvariants();
            }
            assertThat(lru.keysInOrder())
                    .containsExactly(model.entries.keySet().stream()
                            .mapToLong(Long::longValue)
                            .toArray());
        }
    }

    @Test
    void manyCollidingHomes_stillFound() {
        // With salt 0, keys that differ only above the index bits share a home slot: probing must find them all.
        ClusterLru lru = new ClusterLru(64, 0);
        Map<Long, Boolean> held = new HashMap<>();
        for (long i = 0; i < 64; i++) {
            long key = i << 60;
            lru.confirm(BlockKeys.copyOf(new long[] {key}, 1), 0, 1_000);
            held.put(key, true);
        }
        lru.drop(BlockKeys.copyOf(new long[] {3L << 60}, 1));
        lru.checkInvariants();
        for (long key : held.keySet()) {
            int expected = key == 3L << 60 ? 0 : 1;
            assertThat(lru.run(BlockKeys.copyOf(new long[] {key}, 1), 0)).isEqualTo(expected);
        }
    }

    @Test
    void keysWhoseHashesShareTheUpperHalf_toldApartByTheKey() {
        // The index keeps only the upper half of a key's hash: with salt 0 the hash is key × MIX, so keys made from
        // hashes that differ only in the lower half share home and hash half, and only the key tells them apart.
        long mix = 0x9E3779B97F4A7C15L;
        long inverse = mix; // Newton's iteration for the inverse of an odd number modulo 2^64
        for (int i = 0; i < 6; i++) {
            inverse *= 2 - mix * inverse;
        }
        ClusterLru lru = new ClusterLru(64, 0);
        long[] keys = new long[16];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (0x1234_5678_0000_0000L | i) * inverse;
        }
        lru.confirm(BlockKeys.copyOf(keys, 8), 0, 1_000);
        lru.checkInvariants();
        for (int i = 0; i < keys.length; i++) {
            int expected = i < 8 ? 1 : 0;
            assertThat(lru.run(BlockKeys.copyOf(new long[] {keys[i]}, 1), 0))
                    .as("key %d", i)
                    .isEqualTo(expected);
        }
        lru.drop(BlockKeys.copyOf(new long[] {keys[3]}, 1));
        lru.checkInvariants();
        assertThat(lru.keysInOrder()).containsExactly(keys[7], keys[6], keys[5], keys[4], keys[2], keys[1], keys[0]);
    }
}
