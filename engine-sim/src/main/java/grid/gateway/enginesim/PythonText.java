package grid.gateway.enginesim;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A request body's bytes as the text Python's {@code json.loads} reads from them, which is how vLLM (FastAPI,
 * through Starlette's {@code Request.json}) reads every body: {@code json.detect_encoding} picks the encoding from the
 * first bytes (a UTF-32 or UTF-16 byte order mark, a UTF-8 one, or NUL bytes among the first four), and the bytes are
 * decoded with {@code surrogatepass}, so surrogates pass whether encoded in UTF-8 or as UTF-16 or UTF-32 units. The
 * text is Python's: one code point a slot, a surrogate a code point of its own (never joined with its neighbour
 * unless a UTF-16 pair encodes it), so that positions in it are the positions Python's decode errors name.
 *
 * <p>Stateless and thread-safe.
 */
final class PythonText {
    private PythonText() {}

    /**
     * The code points Python decodes from {@code body}, or null when its decoder refuses them (bytes that are not
     * UTF-8, a truncated UTF-16 or UTF-32 unit, a code point above U+10FFFF): {@code json.loads} then raises a
     * {@code UnicodeDecodeError}, which is no {@code JSONDecodeError}.
     */
    static int @Nullable [] decode(byte[] body) {
        if (starts(body, 0x00, 0x00, 0xFE, 0xFF)) {
            return units(body, 4, 4, true);
        }
        if (starts(body, 0xFF, 0xFE, 0x00, 0x00)) {
            return units(body, 4, 4, false);
        }
        if (starts(body, 0xFE, 0xFF)) {
            return units(body, 2, 2, true);
        }
        if (starts(body, 0xFF, 0xFE)) {
            return units(body, 2, 2, false);
        }
        if (starts(body, 0xEF, 0xBB, 0xBF)) {
            return utf8(body, 3);
        }
        int n = body.length;
        if (n >= 4 && body[0] == 0) {
            return body[1] != 0 ? units(body, 0, 2, true) : units(body, 0, 4, true);
        }
        if (n >= 4 && body[1] == 0) {
            return body[2] != 0 || body[3] != 0 ? units(body, 0, 2, false) : units(body, 0, 4, false);
        }
        if (n == 2 && (body[0] == 0 || body[1] == 0)) {
            return units(body, 0, 2, body[0] == 0);
        }
        return utf8(body, 0);
    }

    private static boolean starts(byte[] body, int... prefix) {
        if (body.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (body[i] != (byte) prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** UTF-16 or UTF-32 units of {@code size} bytes from {@code from}; a UTF-16 pair is one code point. */
    private static int @Nullable [] units(byte[] body, int from, int size, boolean bigEndian) {
        if ((body.length - from) % size != 0) {
            return null; // "truncated data"
        }
        int[] text = new int[(body.length - from) / size];
        int n = 0;
        for (int q = from; q < body.length; q += size) {
            long unit = 0;
            for (int i = 0; i < size; i++) {
                int shift = bigEndian ? (size - 1 - i) * 8 : i * 8;
                unit |= (long) (body[q + i] & 0xFF) << shift;
            }
            if (unit > Character.MAX_CODE_POINT) {
                return null; // "code point not in range(0x110000)"
            }
            int c = (int) unit;
            if (size == 2 && n > 0 && Character.isLowSurrogate((char) c) && highSurrogate(text[n - 1])) {
                text[n - 1] = Character.toCodePoint((char) text[n - 1], (char) c);
                continue;
            }
            text[n++] = c;
        }
        return Arrays.copyOf(text, n);
    }

    private static boolean highSurrogate(int c) {
        return c <= 0xFFFF && Character.isHighSurrogate((char) c);
    }

    /**
     * Strict UTF-8 from {@code from}, as Python's decoder reads it with {@code surrogatepass}: no overlong forms, no
     * code point above U+10FFFF, no stray or missing continuation byte; a surrogate's three-byte form is the surrogate.
     */
    private static int @Nullable [] utf8(byte[] body, int from) {
        int[] text = new int[body.length - from];
        int n = 0;
        int q = from;
        while (q < body.length) {
            int b = body[q] & 0xFF;
            int length;
            int c;
            int min;
            if (b < 0x80) {
                text[n++] = b;
                q++;
                continue;
            } else if (b >= 0xC2 && b <= 0xDF) {
                length = 2;
                c = b & 0x1F;
                min = 0x80;
            } else if (b >= 0xE0 && b <= 0xEF) {
                length = 3;
                c = b & 0x0F;
                min = 0x800;
            } else if (b >= 0xF0 && b <= 0xF4) {
                length = 4;
                c = b & 0x07;
                min = 0x10000;
            } else {
                return null;
            }
            if (q + length > body.length) {
                return null;
            }
            for (int i = 1; i < length; i++) {
                int next = body[q + i] & 0xFF;
                if ((next & 0xC0) != 0x80) {
                    return null;
                }
                c = c << 6 | next & 0x3F;
            }
            if (c < min || c > Character.MAX_CODE_POINT) {
                return null;
            }
            text[n++] = c;
            q += length;
        }
        return Arrays.copyOf(text, n);
    }
}
