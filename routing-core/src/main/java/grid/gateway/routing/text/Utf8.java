package grid.gateway.routing.text;

/**
 * Checks one UTF-8 sequence strictly (RFC 3629: no overlong forms, no encoded surrogates, nothing above U+10FFFF).
 *
 * <p>Stateless and thread-safe.
 */
public final class Utf8 {
    private Utf8() {}

    /** The index after the sequence whose lead byte is at {@code q}, or -1 if it is not valid before {@code to}. */
    public static int next(byte[] b, int q, int to) {
        int lead = b[q] & 0xFF;
        int length;
        int min = 0x80;
        int max = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            min = lead == 0xE0 ? 0xA0 : 0x80;
            max = lead == 0xED ? 0x9F : 0xBF;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            min = lead == 0xF0 ? 0x90 : 0x80;
            max = lead == 0xF4 ? 0x8F : 0xBF;
        } else {
            return -1;
        }
        if (length > to - q) {
            return -1;
        }
        int second = b[q + 1] & 0xFF;
        if (second < min || second > max) {
            return -1;
        }
        for (int i = q + 2; i < q + length; i++) {
            if ((b[i] & 0xC0) != 0x80) {
                return -1;
            }
        }
        return q + length;
    }

    /**
     * {@link #next}, but a surrogate encoded in three bytes ({@code ED A0 80} to {@code ED BF BF}) is a sequence too,
     * as Python's decoder reads UTF-8 with {@code surrogatepass}.
     */
    public static int nextPassingSurrogates(byte[] b, int q, int to) {
        if (b[q] == (byte) 0xED && to - q >= 3 && (b[q + 1] & 0xE0) == 0xA0 && (b[q + 2] & 0xC0) == 0x80) {
            return q + 3;
        }
        return next(b, q, to);
    }
}
