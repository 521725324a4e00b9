package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;
import org.junit.jupiter.api.Test;

/** XXH64 against the published vector and against an independent implementation (lz4-java) as an oracle. */
class Xxh64Test {
    @Test
    void hash_emptyInputSeedZero_publishedVector() {
        assertThat(Xxh64.hash(new byte[0], 0, 0, 0)).isEqualTo(0xEF46DB3751D8E999L);
    }

    @Test
    void hash_everyLengthTo300AndOffsets_matchesOracle() {
        XXHash64 oracle = XXHashFactory.safeInstance().hash64();
        SplittableRandom random = new SplittableRandom(42);
        byte[] data = new byte[400];
        for (int length = 0; length <= 300; length++) {
            random.nextBytes(data);
            int offset = random.nextInt(50);
            long seed = random.nextLong();
            assertThat(Xxh64.hash(data, offset, length, seed))
                    .as("length %d", length)
                    .isEqualTo(oracle.hash(data, offset, length, seed));
        }
    }

    @Test
    void hash_largeInput_matchesOracle() {
        byte[] data = "the quick brown fox ".repeat(100_000).getBytes(StandardCharsets.US_ASCII);
        assertThat(Xxh64.hash(data, 3, data.length - 3, 7))
                .isEqualTo(XXHashFactory.safeInstance().hash64().hash(data, 3, data.length - 3, 7));
    }
}
