package grid.gateway.routing.text;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * How Python's {@code json.loads} turns a request body's bytes into text before it parses them, which is how vLLM
 * (FastAPI, through Starlette's {@code Request.json}) reads every body: the encoding is detected from the first bytes
 * ({@code json.detect_encoding}) and decoded with {@code surrogatepass}. A UTF-8 byte order mark is skipped
 * ({@code utf-8-sig}); a UTF-16 or UTF-32 mark, or a NUL among the first two bytes, makes the body UTF-16 or UTF-32.
 *
 * <p>Stateless and thread-safe.
 */
public final class PythonBytes {
    private static final int BOM_LENGTH = 3;

    private PythonBytes() {}

    /**
     * The index where the JSON text of a UTF-8 body starts for Python: 3 after a UTF-8 byte order mark, else 0. A
     * body Python reads as UTF-16 or UTF-32 ({@link #asUtf8} decodes it) is not UTF-8 whatever this says.
     */
    public static int utf8Start(byte[] body) {
        return body.length >= BOM_LENGTH && body[0] == (byte) 0xEF && body[1] == (byte) 0xBB && body[2] == (byte) 0xBF
                ? BOM_LENGTH
                : 0;
    }

    /**
     * The text of {@code body} as Python decodes it, in UTF-8: {@code body} itself from {@link #utf8Start} when it is
     * UTF-8 (not checked here: the JSON grammar checks its strings), else a new array of the decoded UTF-16 or UTF-32
     * text, lone surrogates in their three-byte forms ({@code surrogatepass}). Null when Python's decoder fails (a
     * truncated unit, a code point above U+10FFFF). A new array takes at most 1.5 times the body.
     */
    public static @Nullable Text asUtf8(byte[] body) {
        requireNonNull(body, "body");
        Units units = unitsOf(body);
        if (units == null) {
            return new Text(body, utf8Start(body), body.length);
        }
        if ((body.length - units.from) % units.size != 0) {
            return null;
        }
        int count = (body.length - units.from) / units.size;
        byte[] out = new byte[units.size == 2 ? count * 3 : count * 4];
        int n = 0;
        int q = units.from;
        while (q < body.length) {
            int c = units.read(body, q);
            q += units.size;
            if (units.size == 2 && Character.isHighSurrogate((char) c) && q < body.length) {
                int low = units.read(body, q);
                if (Character.isLowSurrogate((char) low)) {
                    c = Character.toCodePoint((char) c, (char) low);
                    q += 2;
                }
            }
            if (c < 0 || c > Character.MAX_CODE_POINT) {
                return null;
            }
            n = put(out, n, c);
        }
        return new Text(out, 0, n);
    }

    /**
     * A decoded body: UTF-8 bytes {@code bytes[from, to)}.
     *
     * @param bytes the body itself, or the decoded copy
     * @param from the first byte of the text
     * @param to the index after its last byte
     */
    public record Text(byte[] bytes, int from, int to) {}

    /** How the body's code units are read; null for UTF-8. */
    private static @Nullable Units unitsOf(byte[] b) {
        int length = b.length;
        if (starts(b, 0x00, 0x00, 0xFE, 0xFF)) {
            return new Units(4, true, 4);
        }
        if (starts(b, 0xFF, 0xFE, 0x00, 0x00)) {
            return new Units(4, false, 4);
        }
        if (starts(b, 0xFE, 0xFF)) {
            return new Units(2, true, 2);
        }
        if (starts(b, 0xFF, 0xFE)) {
            return new Units(2, false, 2);
        }
        if (utf8Start(b) > 0) {
            return null;
        }
        if (length >= 4) {
            if (b[0] == 0) {
                return b[1] != 0 ? new Units(2, true, 0) : new Units(4, true, 0);
            }
            if (b[1] == 0) {
                return b[2] != 0 || b[3] != 0 ? new Units(2, false, 0) : new Units(4, false, 0);
            }
        } else if (length == 2) {
            if (b[0] == 0) {
                return new Units(2, true, 0);
            }
            if (b[1] == 0) {
                return new Units(2, false, 0);
            }
        }
        return null;
    }

    private static boolean starts(byte[] b, int... prefix) {
        if (b.length < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (b[i] != (byte) prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Writes {@code c} as UTF-8 (a surrogate as its three-byte form) at {@code n}; the index after it. */
    private static int put(byte[] out, int n, int c) {
        if (c < 0x80) {
            out[n] = (byte) c;
            return n + 1;
        }
        if (c < 0x800) {
            out[n] = (byte) (0xC0 | c >>> 6);
            out[n + 1] = (byte) (0x80 | c & 0x3F);
            return n + 2;
        }
        if (c < 0x10000) {
            out[n] = (byte) (0xE0 | c >>> 12);
            out[n + 1] = (byte) (0x80 | c >>> 6 & 0x3F);
            out[n + 2] = (byte) (0x80 | c & 0x3F);
            return n + 3;
        }
        out[n] = (byte) (0xF0 | c >>> 18);
        out[n + 1] = (byte) (0x80 | c >>> 12 & 0x3F);
        out[n + 2] = (byte) (0x80 | c >>> 6 & 0x3F);
        out[n + 3] = (byte) (0x80 | c & 0x3F);
        return n + 4;
    }

    /**
     * Code units of {@code size} bytes, big-endian or not, from index {@code from} (after a byte order mark).
     *
     * @param size 2 or 4
     */
    private record Units(int size, boolean bigEndian, int from) {
        /** The unit at {@code q}; a UTF-32 unit above {@code 0x7FFFFFFF} is negative. */
        int read(byte[] b, int q) {
            int c = 0;
            for (int i = 0; i < size; i++) {
                int shift = bigEndian ? (size - 1 - i) * 8 : i * 8;
                c |= (b[q + i] & 0xFF) << shift;
            }
            return c;
        }
    }
}
