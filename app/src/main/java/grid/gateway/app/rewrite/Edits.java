package grid.gateway.app.rewrite;

import java.util.Arrays;

/**
 * Replacements of byte ranges in one text, in increasing, non-overlapping order, and the text they make.
 *
 * <p>Not thread-safe; one per rewrite.
 */
final class Edits {
    /** Pairs (start, end) of the replaced ranges. */
    private int[] ranges = new int[8];

    private byte[][] replacements = new byte[4][];
    private int count;

    /** Adds a replacement of {@code [start, end)}, which must start at or after the previous one's end. */
    void add(int start, int end, byte[] replacement) {
        if ((count > 0 && start < ranges[count * 2 - 1]) || start > end) {
            throw new IllegalArgumentException("edit [" + start + ", " + end + ") is out of order");
        }
        if (count == replacements.length) {
            ranges = Arrays.copyOf(ranges, count * 4);
            replacements = Arrays.copyOf(replacements, count * 2);
        }
        ranges[count * 2] = start;
        ranges[count * 2 + 1] = end;
        replacements[count++] = replacement;
    }

    int count() {
        return count;
    }

    int start(int i) {
        return ranges[i * 2];
    }

    int end(int i) {
        return ranges[i * 2 + 1];
    }

    byte[] replacement(int i) {
        return replacements[i];
    }

    /** {@code text[from, to)} with every replacement made; each replaced range must lie inside it. */
    byte[] apply(byte[] text, int from, int to) {
        long length = to - from;
        for (int i = 0; i < count; i++) {
            length += replacements[i].length - (end(i) - start(i));
        }
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("rewritten text would be " + length + " bytes");
        }
        byte[] out = new byte[(int) length];
        int q = from;
        int w = 0;
        for (int i = 0; i < count; i++) {
            int kept = start(i) - q;
            System.arraycopy(text, q, out, w, kept);
            w += kept;
            System.arraycopy(replacements[i], 0, out, w, replacements[i].length);
            w += replacements[i].length;
            q = end(i);
        }
        System.arraycopy(text, q, out, w, to - q);
        return out;
    }
}
