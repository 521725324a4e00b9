package grid.gateway.routing.tag;

/**
 * The character rules of a tag's parts (docs/design.md §5), checked by hand over a range of a string so that a hostile id
 * costs one linear pass, no regular expression and no allocation.
 *
 * <p>Stateless and thread-safe.
 */
final class TagText {
    /** The longest tag or engine id read, in chars; anything longer is malformed. */
    static final int MAX_LENGTH = 512;
    /** The longest DNS-1123 label. */
    static final int MAX_SITE_LENGTH = 63;
    /** Hex digits in a mac: the first 8 bytes of an HMAC-SHA256. */
    static final int MAC_LENGTH = 16;

    private TagText() {}

    /**
     * Whether {@code [from, to)} is a DNS-1123 label: 1 to 63 of a-z, 0-9 and '-', starting and ending with a
     * letter or digit (the rule {@code grid.SiteName} enforces on config).
     */
    static boolean isSiteLabel(String text, int from, int to) {
        int length = to - from;
        if (length < 1 || length > MAX_SITE_LENGTH || text.charAt(from) == '-' || text.charAt(to - 1) == '-') {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!(isLowerAlnum(c) || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code [from, to)} is exactly {@code length} lowercase hex digits. */
    static boolean isLowerHex(String text, int from, int to, int length) {
        if (to - from != length) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code [from, to)} is a mac: empty (no key) or 16 lowercase hex digits. */
    static boolean isMac(String text, int from, int to) {
        return from == to || isLowerHex(text, from, to, MAC_LENGTH);
    }

    /** Whether {@code [from, to)} is a non-empty engine id body: only A-Z, a-z, 0-9, '_' and '-'. */
    static boolean isIdBody(String text, int from, int to) {
        if (from >= to) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            if (!(isLowerAlnum(c) || (c >= 'A' && c <= 'Z') || c == '_' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLowerAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }
}
