package grid.gateway.routing.text;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte searches eight bytes at a time (SIMD within a register) for the string loops of {@link JsonTokenizer} and of
 * the readers of the text it accepted.
 *
 * <p>Stateless and thread-safe. A 2 MiB base64 image or a long model answer is one JSON string, and scanning it a
 * byte at a time would dominate both the keyer and the gateway's id tagger.
 */
public final class Swar {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
    private static final long SPACES = 0x2020202020202020L;

    private Swar() {}

    /** The index of the first {@code "} or {@code \} in {@code [from, to)}, or {@code to}. */
    public static int quoteOrBackslash(byte[] b, int from, int to) {
        int p = from;
        while (p + 8 <= to) {
            long w = (long) LONGS.get(b, p);
            long found = hasByte(w, QUOTES) | hasByte(w, BACKSLASHES);
            if (found != 0) {
                return p + firstFlagged(found);
            }
            p += 8;
        }
        while (p < to && b[p] != '"' && b[p] != '\\') {
            p++;
        }
        return p;
    }

    /**
     * The index of the first byte in {@code [from, to)} that needs a closer look inside a JSON string: a quote, a
     * backslash, a control character or a non-ASCII byte; or {@code to}.
     */
    public static int special(byte[] b, int from, int to) {
        int p = from;
        while (p + 8 <= to) {
            long w = (long) LONGS.get(b, p);
            // (w - 0x20..) & ~w flags bytes below 0x20 among ASCII bytes; non-ASCII bytes are flagged by w itself.
            long control = (w - SPACES) & ~w;
            long found = ((control | w) & HIGHS) | hasByte(w, QUOTES) | hasByte(w, BACKSLASHES);
            if (found != 0) {
                return p + firstFlagged(found);
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

    /**
     * The index within the word of the lowest flagged byte. The borrow in these tests can flag a byte falsely only
     * above a truly flagged one, so the lowest flag is always true.
     */
    private static int firstFlagged(long flags) {
        return Long.numberOfTrailingZeros(flags) >>> 3;
    }

    private static long hasByte(long word, long pattern) {
        long x = word ^ pattern;
        return (x - ONES) & ~x & HIGHS;
    }
}
