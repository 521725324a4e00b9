package grid.gateway.routing.keyer;

import java.util.Arrays;

/**
 * An immutable sequence of chained block keys, with value equality of the keys, and the prompt's length in blocks
 * ({@link #promptBlocks()}: the key count, unless the keyer stopped at 512 keys before the prompt's end).
 *
 * <p>Thread-safe (immutable). {@link #toString()} shows the count only: keys are derived from prompt text and must
 * not reach logs.
 */
public final class BlockKeys {
    private static final BlockKeys NONE = new BlockKeys(new long[0], 0);

    private final long[] keys;
    private final int promptBlocks;

    private BlockKeys(long[] keys, int promptBlocks) {
        this.keys = keys;
        this.promptBlocks = promptBlocks;
    }

    /** The empty sequence. */
    public static BlockKeys none() {
        return NONE;
    }

    /** A copy of the first {@code count} keys of {@code keys}. */
    public static BlockKeys copyOf(long[] keys, int count) {
        return count == 0 ? NONE : new BlockKeys(Arrays.copyOf(keys, count), count);
    }

    /**
     * These keys, for a prompt of about {@code blocks} 256-byte blocks: what the keyer estimates when it stopped
     * keying at 512 keys and the prompt goes on (never less than {@link #size()}). Equality ignores it.
     */
    public BlockKeys withPromptBlocks(int blocks) {
        return keys.length == 0 ? NONE : new BlockKeys(keys, Math.max(keys.length, blocks));
    }

    /**
     * The prompt's length in 256-byte blocks: {@link #size()}, or more when the keyer stopped at 512 keys before the
     * prompt's end (then estimated from the body's length). Only {@code load.order_by: expected_wait} prices it; the
     * seed's rules count keys.
     */
    public int promptBlocks() {
        return promptBlocks;
    }

    /** The number of keys. */
    public int size() {
        return keys.length;
    }

    /** Whether there are no keys. */
    public boolean isEmpty() {
        return keys.length == 0;
    }

    /** The key of block {@code index}: it stands for the whole prefix up to and including that block. */
    public long key(int index) {
        return keys[index];
    }

    /** A copy of the keys. */
    public long[] toArray() {
        return keys.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof BlockKeys that && Arrays.equals(keys, that.keys);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(keys);
    }

    @Override
    public String toString() {
        return "BlockKeys[" + keys.length + " keys]";
    }
}
