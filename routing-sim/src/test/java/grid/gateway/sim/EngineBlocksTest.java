package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class EngineBlocksTest {
    private static final Segment SYSTEM = new Segment(100, 200, Segment.Role.SYSTEM);

    @Test
    void hashes_sharedLeadingSegment_shareItsFullBlocksOnly() {
        long seed = EngineBlocks.seed("m", "");
        long[] a = EngineBlocks.hashes(seed, List.of(SYSTEM, new Segment(1, 100, Segment.Role.USER)));
        long[] b = EngineBlocks.hashes(seed, List.of(SYSTEM, new Segment(2, 100, Segment.Role.USER)));

        // The system segment and its role token are 201 tokens: 12 full blocks are identical, the 13th mixes both.
        assertThat(Arrays.copyOf(a, 12)).isEqualTo(Arrays.copyOf(b, 12));
        assertThat(a[12]).isNotEqualTo(b[12]);
        assertThat(a).hasSize(302 / EngineBlocks.BLOCK_TOKENS);
    }

    @Test
    void hashes_otherSalt_shareNothing() {
        long[] plain = EngineBlocks.hashes(EngineBlocks.seed("m", ""), List.of(SYSTEM));
        long[] salted = EngineBlocks.hashes(EngineBlocks.seed("m", "tenant-1"), List.of(SYSTEM));

        assertThat(plain).doesNotContain(salted);
        assertThat(plain[0]).isNotEqualTo(salted[0]);
    }
}
