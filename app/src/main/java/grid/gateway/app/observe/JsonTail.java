package grid.gateway.app.observe;

/**
 * The top-level members that the tail of a JSON object holds whole, when only the tail of its text was kept (an
 * answer longer than the relay's {@code BodyTail}): read from the end backwards, where the state of every byte is
 * known. Scanning forward from the tail's first byte cannot tell whether it starts inside a string; backwards it
 * can, from the object's closing brace: a quote preceded by an even run of backslashes delimits a string (valid JSON
 * has no backslash outside one), so every byte right of that quote is classified exactly, and a comma outside strings
 * and one level deep separates two top-level members.
 *
 * <p>Stateless and thread-safe.
 */
final class JsonTail {
    private JsonTail() {}

    /**
     * Where the top-level members that {@code tail} holds whole begin: the index of the comma before the first of them
     * (the leftmost comma outside strings at the top level), or -1 when there is none: the text does not end with an
     * object's closing brace, or its opening brace is in the tail (the text is whole, not a tail), or no comma
     * separates two top-level members in what can be classified.
     */
    static int membersStart(byte[] tail) {
        int end = tail.length - 1;
        while (end >= 0 && whiteSpace(tail[end])) {
            end--;
        }
        if (end < 0 || tail[end] != '}') {
            return -1;
        }
        int depth = 0;
        boolean inString = false;
        int start = -1;
        for (int i = end; i >= 0; i--) {
            byte b = tail[i];
            if (b == '"') {
                int backslashes = 0;
                while (i - 1 - backslashes >= 0 && tail[i - 1 - backslashes] == '\\') {
                    backslashes++;
                }
                if (i - backslashes == 0) {
                    return start; // the run may go on before the tail: this quote cannot be classified
                }
                if (backslashes % 2 == 0) {
                    inString = !inString;
                }
            } else if (!inString) {
                if (b == '}' || b == ']') {
                    depth++;
                } else if (b == '{' || b == '[') {
                    if (--depth == 0) {
                        return -1; // the object opens here: a whole text, read as one
                    }
                } else if (b == ',' && depth == 1) {
                    start = i;
                }
            }
        }
        return start;
    }

    private static boolean whiteSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\r' || b == '\n';
    }
}
