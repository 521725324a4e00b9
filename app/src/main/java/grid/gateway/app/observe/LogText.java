package grid.gateway.app.observe;

/** Text made safe to write into one log line. Stateless. */
final class LogText {
    private LogText() {}

    /**
     * {@code text} with each control character written as an escape: {@code \n}, {@code \r}, {@code \t} and
     * {@code \\uXXXX} for the others (C0, DEL, C1, and the Unicode line and paragraph separators); {@code text}
     * itself when it has none.
     */
    static String escapeControls(String text) {
        int first = firstControl(text);
        if (first < 0) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length() + 16).append(text, 0, first);
        for (int i = first; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!isControl(c)) {
                out.append(c);
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '\r') {
                out.append("\\r");
            } else if (c == '\t') {
                out.append("\\t");
            } else {
                out.append(String.format("\\u%04x", (int) c));
            }
        }
        return out.toString();
    }

    private static int firstControl(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (isControl(text.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029';
    }
}
