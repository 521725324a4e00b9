package grid.gateway.app.rewrite;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the next byte inside a JSON string that needs a closer look, eight bytes at a time (SIMD within a register).
 *
 * <p>Stateless and thread-safe. Model output makes most of an answer's bytes string content, so the scanner's string
 * loop is where its time goes.
 */
final class ByteSearch {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    private ByteSearch() {}

    /**
     * The index of the first byte in {@code [from, to)} that is a quote, a backslash, a control character or not
     * ASCII; or {@code to}.
     */
    static int special(byte[] b, int from, int to) {
        int p = from;
        while (p + 8 <= to) {
            long w = (long) LONGS.get(b, p);
            // (w - 0x20..) & ~w flags ASCII bytes below 0x20; w itself flags bytes >= 0x80. A borrow can flag a byte
            // falsely only above a truly flagged one, so the lowest flag is always true.
            long control = (w - SPACES) & ~w;
            long found = (control | w) & HIGHS | has(w, QUOTES) | has(w, BACKSLASHES);
            if (found != 0) {
                return p + (Long.numberOfTrailingZeros(found) >>> 3);
            }
            p += 8;
        }
        while (p < to) {
            int c = b[p];
            if (c == '"' || c == '\\' || c < 0x20) {
                return p;
            }
            p++;
        }
        return p;
    }

    private static long has(long word, long pattern) {
        long x = word ^ pattern;
        return (x - ONES) & ~x & HIGHS;
    }
}
