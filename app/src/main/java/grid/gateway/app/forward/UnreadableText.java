package grid.gateway.app.forward;

import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;

/**
 * Whether the first bytes of an answer body on a path whose answers carry stored ids are text in an encoding the
 * taggers do not read but a client may (docs/design.md §5): a {@code Content-Type} that declares a charset other than
 * UTF-8 (a client that decodes by it, as Python's {@code requests} and Java's {@code HttpClient} do, may read other
 * strings and members than the taggers: in Shift_JIS a byte 0x81 takes the backslash after it, so an escaped quote
 * ends a string there), a byte order mark, which a JSON parser may ignore (RFC 8259
 * §8.1) and an event stream's reader drops, or JSON in UTF-16 or UTF-32, which parsers tell by the NUL bytes among a
 * text's first four (RFC 4627 §3). The taggers read UTF-8 without a mark, as engines write it: such an answer would
 * pass untagged, its ids (a tag of another cluster among them) read by the client as it reads any.
 *
 * <p>Stateless and thread-safe.
 */
final class UnreadableText {
    /** The bytes among which a JSON text in UTF-16 or UTF-32 has a NUL: its first character's. */
    private static final int FIRST_CHARACTER = 4;

    private UnreadableText() {}

    /**
     * Whether {@code bytes[0, count)}, an answer body's first bytes, begin with a byte order mark (or a byte that no
     * UTF-8 JSON text or event stream begins with: NUL, 0xFE, 0xFF), or hold a NUL among the first four, whatever
     * the body's label or first byte: white space before a JSON text in UTF-16 or UTF-32 has its NULs too, and a client
     * that parses the body as JSON detects the encoding by them, while the event-stream tagger reads no id there.
     */
    static boolean hidesIds(byte[] bytes, int count) {
        if (count <= 0) {
            return false;
        }
        int first = bytes[0] & 0xFF;
        if (first == 0xEF || first == 0xFE || first == 0xFF || first == 0) {
            return true;
        }
        for (int i = 1; i < Math.min(count, FIRST_CHARACTER); i++) {
            if (bytes[i] == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a {@code Content-Type} field of {@code headers} names a {@code charset} other than UTF-8 ({@code utf-8}
     * or {@code utf8}, in any case, quoted or not); a {@code charset} without a value names none. Every field and every
     * parameter counts, whichever a client reads; a parameter is whatever lies between two {@code ;}, so a quoted value
     * holding one may be refused that a strict reader would not: an engine sends none such.
     */
    static boolean declaresOtherCharset(Headers headers) {
        if (!headers.contains(HeaderNames.CONTENT_TYPE)) {
            return false;
        }
        for (String value : headers.values(HeaderNames.CONTENT_TYPE)) {
            String[] parts = value.split(";", -1);
            for (int i = 1; i < parts.length; i++) {
                int equals = parts[i].indexOf('=');
                if (equals > 0
                        && parts[i].substring(0, equals).strip().equalsIgnoreCase("charset")
                        && !isUtf8(parts[i].substring(equals + 1))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isUtf8(String value) {
        String charset = value.strip();
        if (charset.length() >= 2 && charset.startsWith("\"") && charset.endsWith("\"")) {
            charset = charset.substring(1, charset.length() - 1).strip();
        }
        return charset.isEmpty() || charset.equalsIgnoreCase("utf-8") || charset.equalsIgnoreCase("utf8");
    }
}
