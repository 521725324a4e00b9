package grid.gateway.routing.keyer;

import grid.gateway.routing.text.JsonEscape;
import grid.gateway.routing.text.JsonTokenizer;
import grid.gateway.routing.text.Swar;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Moves through JSON text that {@link BodyIndex} accepted, by byte offsets: skips values, decodes strings, and
 * compares member names.
 *
 * <p>Because the text is known to be valid, nothing here re-checks grammar, and every method is total on positions
 * the walkers reach. Strings the validator indexed as long are skipped in one step. Decoding turns escapes into
 * UTF-8; an escaped lone surrogate becomes its three-byte generalised UTF-8 form, so that two different lone
 * surrogates still key differently.
 *
 * <p>Not thread-safe; one per body.
 */
final class JsonNav {
    private final byte[] b;
    private final int n;
    /** Pairs (start, end) of long strings, sorted by start. */
    private final int[] longStrings;

    JsonNav(byte[] text, int[] longStrings) {
        this.b = text;
        this.n = text.length;
        this.longStrings = longStrings;
    }

    byte[] bytes() {
        return b;
    }

    byte at(int i) {
        return b[i];
    }

    boolean isString(int p) {
        return b[p] == '"';
    }

    boolean isObject(int p) {
        return b[p] == '{';
    }

    boolean isArray(int p) {
        return b[p] == '[';
    }

    /** The first index at or after {@code from} that is not JSON white space. */
    int ws(int from) {
        return JsonTokenizer.skipWhiteSpace(b, from, n);
    }

    /** From the end of an element or member value: the start of the next one, or the closing bracket. */
    int next(int valueEnd) {
        int q = ws(valueEnd);
        return b[q] == ',' ? ws(q + 1) : q;
    }

    /** From an opening bracket: the first element or member, or the closing bracket. */
    int enter(int open) {
        return ws(open + 1);
    }

    /** Whether {@code p} is the closing bracket of the container being iterated. */
    boolean isClose(int p) {
        byte c = b[p];
        return c == ']' || c == '}';
    }

    /** From a member name: the start of its value. */
    int memberValue(int keyStart) {
        return ws(ws(stringEnd(keyStart)) + 1);
    }

    /** The index just after the value that starts at {@code p}. */
    int end(int p) {
        byte c = b[p];
        if (c == '"') {
            return stringEnd(p);
        }
        if (c != '{' && c != '[') {
            int q = p + 1;
            while (q < n && isScalarByte(b[q])) {
                q++;
            }
            return q;
        }
        int depth = 0;
        int q = p;
        while (true) {
            byte x = b[q];
            if (x == '"') {
                q = stringEnd(q);
                continue;
            }
            if (x == '{' || x == '[') {
                depth++;
            } else if ((x == '}' || x == ']') && --depth == 0) {
                return q + 1;
            }
            q++;
        }
    }

    /** From an opening quote: the index just after the closing quote. */
    int stringEnd(int start) {
        int q = start + 1;
        if (longStrings.length > 0) {
            // Most strings are short: look for the close nearby before searching the index.
            int near = Swar.quoteOrBackslash(b, q, Math.min(n, start + BodyIndex.LONG_STRING - 1));
            if (near < n && b[near] == '"') {
                return near + 1;
            }
            int i = indexOfLong(start);
            if (i >= 0) {
                return longStrings[i * 2 + 1];
            }
        }
        while (true) {
            q = Swar.quoteOrBackslash(b, q, n);
            if (b[q] == '"') {
                return q + 1;
            }
            q += 2;
        }
    }

    /** Writes the decoded content of the string that starts at {@code start} into {@code sink}. */
    void decode(int start, CanonicalSink sink) {
        int q = start + 1;
        while (true) {
            int special = Swar.quoteOrBackslash(b, q, n);
            if (special > q) {
                sink.write(b, q, special - q);
            }
            if (b[special] == '"') {
                return;
            }
            q = unescape(special, sink);
        }
    }

    /** The decoded content of the string that starts at {@code start}. */
    byte[] decodedBytes(int start) {
        ByteSink sink = new ByteSink(stringEnd(start) - start);
        decode(start, sink);
        return sink.toByteArray();
    }

    /** The decoded content of the string that starts at {@code start}, as Java text. */
    String string(int start) {
        return new String(decodedBytes(start), StandardCharsets.UTF_8);
    }

    /** Whether the string that starts at {@code start} decodes to {@code name} exactly. */
    boolean stringEquals(int start, byte[] name) {
        int contentEnd = stringEnd(start) - 1;
        int length = contentEnd - start - 1;
        if (Arrays.equals(b, start + 1, contentEnd, name, 0, name.length)) {
            return true;
        }
        // Only an escaped spelling can still match; it is always longer than the plain one.
        return length > name.length
                && Swar.quoteOrBackslash(b, start + 1, contentEnd) < contentEnd
                && Arrays.equals(decodedBytes(start), name);
    }

    /** Whether the string that starts at {@code start} decodes to text that begins with {@code prefix}. */
    boolean stringStartsWith(int start, byte[] prefix) {
        int contentEnd = stringEnd(start) - 1;
        int plain = Swar.quoteOrBackslash(b, start + 1, contentEnd);
        if (plain - start - 1 >= prefix.length) {
            return Arrays.equals(b, start + 1, start + 1 + prefix.length, prefix, 0, prefix.length);
        }
        byte[] decoded = decodedBytes(start);
        return decoded.length >= prefix.length && Arrays.equals(decoded, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** Decodes the escape at {@code q} into {@code sink}; returns the index after it. */
    private int unescape(int q, CanonicalSink sink) {
        byte e = b[q + 1];
        if (e != 'u') {
            sink.write(JsonEscape.shortEscape(e));
            return q + 2;
        }
        long decoded = JsonEscape.unicode(b, q, n);
        writeCodePoint(JsonEscape.codePoint(decoded), sink);
        return JsonEscape.next(decoded);
    }

    private static void writeCodePoint(int cp, CanonicalSink sink) {
        if (cp < 0x80) {
            sink.write(cp);
        } else if (cp < 0x800) {
            sink.write(0xC0 | (cp >>> 6));
            sink.write(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            sink.write(0xE0 | (cp >>> 12));
            sink.write(0x80 | ((cp >>> 6) & 0x3F));
            sink.write(0x80 | (cp & 0x3F));
        } else {
            sink.write(0xF0 | (cp >>> 18));
            sink.write(0x80 | ((cp >>> 12) & 0x3F));
            sink.write(0x80 | ((cp >>> 6) & 0x3F));
            sink.write(0x80 | (cp & 0x3F));
        }
    }

    private int indexOfLong(int start) {
        int lo = 0;
        int hi = longStrings.length / 2 - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int value = longStrings[mid * 2];
            if (value < start) {
                lo = mid + 1;
            } else if (value > start) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private static boolean isScalarByte(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || c == 'E';
    }
}
