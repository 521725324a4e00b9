package grid.gateway.app.forward;

import java.util.Arrays;

/**
 * The last {@link #CAPACITY} bytes of an answer body, kept while it streams by: engines report usage (cached
 * tokens) at the end of a body or in a stream's final event, so this is all the usage parser needs.
 *
 * <p>The buffer grows with the body up to the capacity and then wraps, so a small answer costs a small buffer.
 *
 * <p>Not thread-safe; one per answer.
 */
public final class BodyTail {
    /** Bytes kept. */
    public static final int CAPACITY = 64 * 1024;

    private byte[] ring = new byte[0];
    private long total;

    /** Adds bytes, keeping only the last {@link #CAPACITY}. */
    public void append(byte[] src, int offset, int length) {
        int off = offset;
        int len = length;
        if (len > CAPACITY) {
            off += len - CAPACITY;
            total += len - CAPACITY;
            len = CAPACITY;
        }
        if (ring.length < CAPACITY && total + len > ring.length) {
            ring = Arrays.copyOf(ring, (int) Math.min(CAPACITY, Math.max(total + len, ring.length * 2L)));
        }
        for (int i = 0; i < len; ) {
            int at = (int) (total % ring.length);
            int n = Math.min(len - i, ring.length - at);
            System.arraycopy(src, off + i, ring, at, n);
            i += n;
            total += n;
        }
    }

    /** A copy of the kept bytes, oldest first. */
    public byte[] bytes() {
        if (total <= ring.length) {
            return Arrays.copyOf(ring, (int) total);
        }
        int start = (int) (total % ring.length);
        byte[] out = new byte[ring.length];
        System.arraycopy(ring, start, out, 0, ring.length - start);
        System.arraycopy(ring, 0, out, ring.length - start, start);
        return out;
    }
}
