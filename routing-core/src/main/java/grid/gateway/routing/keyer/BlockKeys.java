package grid.gateway.routing.keyer;

import java.util.Arrays;

/**
 * An immutable sequence of chained block keys, with value equality.
 *
 * <p>Thread-safe (immutable). {@link #toString()} shows the count only: keys are derived from prompt text and must
 * not reach logs.
 */
public final class BlockKeys {
    private static final BlockKeys NONE = new BlockKeys(new long[0]);

    private final long[] keys;

    private BlockKeys(long[] keys) {
        this.keys = keys;
    }

    /** The empty sequence. */
    public static BlockKeys none() {
        return NONE;
    }

    /** A copy of the first {@code count} keys of {@code keys}. */
    public static BlockKeys copyOf(long[] keys, int count) {
        return count == 0 ? NONE : new BlockKeys(Arrays.copyOf(keys, count));
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
