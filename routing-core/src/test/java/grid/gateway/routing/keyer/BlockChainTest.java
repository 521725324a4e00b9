package grid.gateway.routing.keyer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.testing.SeededTrials;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** 256-byte blocks, chained keys seeded by model and salt, at most 512 keys. */
class BlockChainTest {
    private static final long SEED = BlockChain.seed(bytes("m"), null);

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static BlockKeys chain(byte[] stream) {
        BlockChain chain = new BlockChain(SEED);
        chain.write(stream, 0, stream.length);
        return chain.finish();
    }

    @Test
    void finish_exactBlocksAndPartialBlock_countAsBlocks() {
        assertThat(chain(new byte[256]).size()).isEqualTo(1);
        assertThat(chain(new byte[257]).size()).isEqualTo(2);
        assertThat(chain(new byte[0]).size()).isZero();
    }

    @Test
    void key_isChained_soEqualBlocksAtDifferentPositionsDiffer() {
        BlockKeys keys = chain(new byte[512]);
        assertThat(keys.key(0)).isNotEqualTo(keys.key(1));
    }

    @Test
    void key_dependsOnWholePrefix() {
        byte[] a = new byte[768];
        byte[] b = new byte[768];
        b[0] = 1; // only the first block differs
        assertThat(chain(a).key(2)).isNotEqualTo(chain(b).key(2));
    }

    @Test
    void write_the512thKey_endsTheWalk_laterBytesIgnored() {
        BlockChain chain = new BlockChain(SEED);
        byte[] block = new byte[256];
        for (int i = 0; i < 511; i++) {
            chain.write(block, 0, block.length);
        }
        assertThat(chain.isFull()).isFalse();
        chain.write(block, 0, 1);
        // The byte that completes the 512th block throws, whether it comes alone or in a longer write.
        assertThatThrownBy(() -> chain.write(block, 0, 255)).isSameAs(ChainFull.INSTANCE);
        assertThat(chain.isFull()).isTrue();
        chain.write(block, 0, block.length);
        chain.write(7);
        assertThat(chain.finish().size()).isEqualTo(512);

        BlockChain single = new BlockChain(SEED);
        for (int i = 0; i < 511; i++) {
            single.write(block, 0, block.length);
        }
        single.write(block, 0, 255);
        assertThatThrownBy(() -> single.write(0)).isSameAs(ChainFull.INSTANCE);
        BlockChain whole = new BlockChain(SEED);
        assertThatThrownBy(() -> whole.write(new byte[600 * 256], 0, 600 * 256)).isSameAs(ChainFull.INSTANCE);
        assertThat(whole.finish()).isEqualTo(single.finish());
    }

    @Test
    void finish_511BlocksAndAPartialOne_512KeysWithoutStopping() {
        BlockChain chain = new BlockChain(SEED);
        chain.write(new byte[511 * 256 + 1], 0, 511 * 256 + 1);
        assertThat(chain.isFull()).isFalse();
        assertThat(chain.finish().size()).isEqualTo(512);
    }

    @Test
    void seed_modelAndSaltSeparate() {
        assertThat(BlockChain.seed(bytes("m"), null)).isNotEqualTo(BlockChain.seed(bytes("n"), null));
        assertThat(BlockChain.seed(bytes("m"), null)).isNotEqualTo(BlockChain.seed(bytes("m"), new byte[0]));
        assertThat(BlockChain.seed(bytes("m"), bytes("a"))).isNotEqualTo(BlockChain.seed(bytes("m"), bytes("b")));
        // "ab" + salt "" must not collide with "a" + salt "b".
        assertThat(BlockChain.seed(bytes("ab"), new byte[0])).isNotEqualTo(BlockChain.seed(bytes("a"), bytes("b")));
        // Reliability C38: model "m1" + salt "23" must not seed like model "m12" + salt "3".
        assertThat(BlockChain.seed(bytes("m1"), bytes("23"))).isNotEqualTo(BlockChain.seed(bytes("m12"), bytes("3")));
    }

    @Test
    void keys_doNotDependOnHowTheStreamIsChunked() {
        SeededTrials.forAll(
                20261130,
                200,
                random -> {
                    byte[] stream = new byte[random.nextInt(3000)];
                    random.nextBytes(stream);
                    return new Chunked(stream, 1 + random.nextInt(700));
                },
                sample -> {
                    BlockChain chunked = new BlockChain(SEED);
                    byte[] stream = sample.stream();
                    for (int off = 0; off < stream.length; off += sample.chunk()) {
                        int length = Math.min(sample.chunk(), stream.length - off);
                        if (length == 1) {
                            chunked.write(stream[off]);
                        } else {
                            chunked.write(stream, off, length);
                        }
                    }
                    assertThat(chunked.finish()).isEqualTo(chain(Arrays.copyOf(stream, stream.length)));
                });
    }

    private record Chunked(byte[] stream, int chunk) {
        @Override
        public String toString() {
            return stream.length + " bytes in chunks of " + chunk;
        }
    }
}
