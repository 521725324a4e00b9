package grid.gateway.routing.keyer;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Cuts the canonical byte stream into 256-byte blocks and chains their keys (docs/design.md §4).
 *
 * <p>Block {@code i}'s key is {@code XXH64(bytes of block i, seed = key of block i-1)}, and block 0 is seeded by
 * {@link #seed(byte[], byte[])} from the model and the cache_salt, so a key stands for the whole prefix up to it
 * and the same prompt under another model or salt shares no key. A final partial block counts as a block. Sealing
 * the 512th key throws {@link ChainFull}, which ends the walk where it stands, so the keyer reads nothing after that
 * key; bytes written after it are ignored.
 *
 * <p>Not thread-safe; one per request, used once.
 */
final class BlockChain implements CanonicalSink {
    /** Bytes per block. */
    static final int BLOCK_BYTES = 256;
    /** The most keys one request gets. */
    static final int MAX_KEYS = 512;

    private static final long SEED_DOMAIN = 0x5EEDL;

    private final byte[] block = new byte[BLOCK_BYTES];
    /** Keys a short prompt needs (4 KiB of canonical text); the array grows by doubling up to {@link #MAX_KEYS}. */
    static final int INITIAL_KEYS = 16;

    private long[] keys = new long[INITIAL_KEYS];
    private int fill;
    private int count;
    private long previous;

    BlockChain(long seed) {
        this.previous = seed;
    }

    /**
     * The chain's seed: a hash of the model name and, when the body has one, the cache_salt. A salt-less body and a
     * body with an empty salt differ.
     */
    static long seed(byte[] model, byte @Nullable [] salt) {
        int saltLength = salt == null ? 0 : salt.length;
        byte[] material = new byte[model.length + saltLength + 3];
        material[0] = (byte) Segment.SEED;
        System.arraycopy(model, 0, material, 1, model.length);
        material[model.length + 1] = (byte) Segment.SEED;
        material[model.length + 2] = (byte) (salt == null ? 0 : 1);
        if (salt != null) {
            System.arraycopy(salt, 0, material, model.length + 3, saltLength);
        }
        return Xxh64.hash(material, 0, material.length, SEED_DOMAIN);
    }

    @Override
    public void write(int b) {
        if (count == MAX_KEYS) {
            return;
        }
        block[fill++] = (byte) b;
        if (fill == BLOCK_BYTES) {
            seal(block, 0);
        }
    }

    @Override
    public void write(byte[] src, int offset, int length) {
        int off = offset;
        int remaining = length;
        while (remaining > 0 && count < MAX_KEYS) {
            if (fill == 0 && remaining >= BLOCK_BYTES) {
                // A whole block straight from the source: no copy.
                seal(src, off);
                off += BLOCK_BYTES;
                remaining -= BLOCK_BYTES;
                continue;
            }
            int n = Math.min(BLOCK_BYTES - fill, remaining);
            System.arraycopy(src, off, block, fill, n);
            fill += n;
            off += n;
            remaining -= n;
            if (fill == BLOCK_BYTES) {
                seal(block, 0);
            }
        }
    }

    /** Whether it holds 512 keys, so that the walk stopped there. */
    boolean isFull() {
        return count == MAX_KEYS;
    }

    /** The keys, the final partial block included. Call once, after the last write. */
    BlockKeys finish() {
        if (fill > 0 && count < MAX_KEYS) {
            previous = Xxh64.hash(block, 0, fill, previous);
            add(previous);
            fill = 0;
        }
        return BlockKeys.copyOf(keys, count);
    }

    /** Keys a whole block; the 512th key stops the walk ({@link ChainFull}). */
    private void seal(byte[] src, int offset) {
        previous = Xxh64.hash(src, offset, BLOCK_BYTES, previous);
        add(previous);
        fill = 0;
        if (count == MAX_KEYS) {
            throw ChainFull.INSTANCE;
        }
    }

    /**
     * Appends a key; callers never pass {@link #MAX_KEYS}. The array doubles as keys come, so a 1 KiB prompt does not
     * allocate room for 512.
     */
    private void add(long key) {
        if (count == keys.length) {
            keys = Arrays.copyOf(keys, Math.min(MAX_KEYS, keys.length * 2));
        }
        keys[count++] = key;
    }
}
