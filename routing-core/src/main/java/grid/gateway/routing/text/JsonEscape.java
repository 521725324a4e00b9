package grid.gateway.routing.text;

import java.nio.charset.StandardCharsets;

/**
 * Decodes the backslash escapes of JSON strings that {@link JsonTokenizer} accepted, so every escape is complete and
 * nothing here re-checks grammar.
 *
 * <p>A surrogate pair written as two {@code \\uXXXX} escapes is one code point; a lone surrogate ({@code \ud800},
 * valid JSON) stays its own value, so readers can keep it apart from every other text: the keyer as three-byte
 * generalised UTF-8, the gateway as a lone {@code char}.
 *
 * <p>Stateless and thread-safe.
 */
public final class JsonEscape {
    private JsonEscape() {}

    /**
     * Decodes the escape whose backslash is at {@code q}, before {@code to}: the code point it stands for and the
     * index after it, packed as {@code codePoint << 32 | next}; read them with {@link #codePoint} and {@link #next}.
     */
    public static long decode(byte[] b, int q, int to) {
        return b[q + 1] == 'u' ? unicode(b, q, to) : pack(shortEscape(b[q + 1]), q + 2);
    }

    /**
     * The character a two-byte escape stands for, given the byte after its backslash (anything but {@code u}): the
     * keyer's hot loop writes it directly, since nearly every escape in a prompt is a {@code \n} or a quote.
     */
    public static int shortEscape(byte escape) {
        return switch (escape) {
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'n' -> '\n';
            case 'r' -> '\r';
            case 't' -> '\t';
            default -> escape; // '"', '\\' and '/' stand for themselves
        };
    }

    /**
     * Decodes the {@code \\uXXXX} escape whose backslash is at {@code q}, with the low half of a surrogate pair that
     * follows it, like {@link #decode}.
     */
    public static long unicode(byte[] b, int q, int to) {
        int unit = hex4(b, q + 2);
        if (Character.isHighSurrogate((char) unit)
                && q + 11 < to
                && b[q + 6] == '\\'
                && b[q + 7] == 'u'
                && Character.isLowSurrogate((char) hex4(b, q + 8))) {
            return pack(Character.toCodePoint((char) unit, (char) hex4(b, q + 8)), q + 12);
        }
        return pack(unit, q + 6);
    }

    /** The code point of a {@link #decode} result. */
    public static int codePoint(long decoded) {
        return (int) (decoded >>> 32);
    }

    /** The index after the escape, of a {@link #decode} result. */
    public static int next(long decoded) {
        return (int) decoded;
    }

    /** The text of the string content {@code b[start, end)} (between the quotes), escapes decoded. */
    public static String text(byte[] b, int start, int end) {
        StringBuilder text = new StringBuilder(end - start);
        int q = start;
        while (q < end) {
            int run = Swar.quoteOrBackslash(b, q, end);
            text.append(new String(b, q, run - q, StandardCharsets.UTF_8));
            if (run == end) {
                break;
            }
            long decoded = decode(b, run, end);
            text.appendCodePoint(codePoint(decoded));
            q = next(decoded);
        }
        return text.toString();
    }

    private static int hex4(byte[] b, int at) {
        int value = 0;
        for (int i = at; i < at + 4; i++) {
            value = (value << 4) | Character.digit(b[i], 16);
        }
        return value;
    }

    private static long pack(int codePoint, int next) {
        return (long) codePoint << 32 | next;
    }
}
