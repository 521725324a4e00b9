package grid.gateway.app.forward;

/**
 * Whether the first bytes of an answer body on a path whose answers carry stored ids are text in an encoding the
 * taggers do not read but a client may (docs/design.md §5): a byte order mark, which a JSON parser may ignore (RFC 8259
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
     * UTF-8 JSON text or event stream begins with: NUL, 0xFE, 0xFF), or, when {@code json}, hold a NUL among the first
     * four.
     */
    static boolean hidesIds(byte[] bytes, int count, boolean json) {
        if (count <= 0) {
            return false;
        }
        int first = bytes[0] & 0xFF;
        if (first == 0xEF || first == 0xFE || first == 0xFF || first == 0) {
            return true;
        }
        for (int i = 1; json && i < Math.min(count, FIRST_CHARACTER); i++) {
            if (bytes[i] == 0) {
                return true;
            }
        }
        return false;
    }
}
