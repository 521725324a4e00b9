package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {
    /** 257 bytes: 65 tokens, 4 full blocks, all 4 may hit. */
    private static final String FOUR_BLOCKS = "a".repeat(256) + "!";

    @Test
    void promptBlocks_textOf257Bytes_65TokensFourBlocks() {
        PromptBlocks blocks = PromptBlocks.of(FOUR_BLOCKS, "m", Optional.empty());

        assertThat(blocks.tokens()).isEqualTo(65);
        assertThat(blocks.size()).isEqualTo(4);
        assertThat(blocks.maxHitBlocks()).isEqualTo(4);
    }

    @Test
    void promptBlocks_exactlyTwoBlocks_lastBlockNeverHits() {
        // vLLM always computes the last prompt token, so 32 tokens can hit 16 at most
        assertThat(PromptBlocks.of("b".repeat(128), "m", Optional.empty()).maxHitBlocks())
                .isEqualTo(1);
    }

    @Test
    void prefixCache_repeatedPrompt_hitsItsFullBlocks() {
        PrefixCache cache = new PrefixCache(100);
        PromptBlocks prompt = PromptBlocks.of(FOUR_BLOCKS, "m", Optional.empty());

        assertThat(cache.admit(prompt)).isZero();
        assertThat(cache.admit(prompt)).isEqualTo(64);
    }

    @Test
    void prefixCache_sharedPrefixThenDivergence_hitsTheSharedBlocksOnly() {
        PrefixCache cache = new PrefixCache(100);
        cache.admit(PromptBlocks.of(FOUR_BLOCKS, "m", Optional.empty()));

        String divergent = "a".repeat(100) + "z".repeat(157);

        // bytes 0-63 match (block 0); block 1 (64-127) contains the divergence at byte 100
        assertThat(cache.admit(PromptBlocks.of(divergent, "m", Optional.empty())))
                .isEqualTo(16);
    }

    @Test
    void prefixCache_otherSaltOrModel_misses() {
        PrefixCache cache = new PrefixCache(100);
        cache.admit(PromptBlocks.of(FOUR_BLOCKS, "m", Optional.of("s1")));

        assertThat(cache.admit(PromptBlocks.of(FOUR_BLOCKS, "m", Optional.of("s2"))))
                .isZero();
        assertThat(cache.admit(PromptBlocks.of(FOUR_BLOCKS, "other", Optional.of("s1"))))
                .isZero();
        assertThat(cache.admit(PromptBlocks.of(FOUR_BLOCKS, "m", Optional.empty())))
                .isZero();
        assertThat(cache.admit(PromptBlocks.of(FOUR_BLOCKS, "m", Optional.of("s1"))))
                .isEqualTo(64);
    }

    @Test
    void prefixCache_full_evictsTheLeastRecentlyUsedBlocks() {
        PrefixCache cache = new PrefixCache(8);
        PromptBlocks a = PromptBlocks.of(FOUR_BLOCKS, "m", Optional.empty());
        PromptBlocks b = PromptBlocks.of("b".repeat(256) + "!", "m", Optional.empty());
        PromptBlocks c = PromptBlocks.of("c".repeat(256) + "!", "m", Optional.empty());
        cache.admit(a);
        cache.admit(b);
        cache.admit(a); // a is used again, so b is the least recently used

        cache.admit(c);

        assertThat(cache.size()).isEqualTo(8);
        assertThat(cache.admit(a)).isEqualTo(64);
        assertThat(cache.admit(b)).isZero();
    }

    @Test
    void prefixCache_zeroCapacity_neverHits() {
        PrefixCache cache = new PrefixCache(0);
        PromptBlocks prompt = PromptBlocks.of(FOUR_BLOCKS, "m", Optional.empty());
        cache.admit(prompt);

        assertThat(cache.admit(prompt)).isZero();
        assertThat(cache.size()).isZero();
    }
}
