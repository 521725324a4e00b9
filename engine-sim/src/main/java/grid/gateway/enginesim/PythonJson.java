package grid.gateway.enginesim;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.io.Serial;
import java.math.BigInteger;

/**
 * Python's {@code json} decoder (CPython 3.11's {@code _json} scanner, strict mode), over the text {@link PythonText}
 * decodes: the values it makes and the errors it raises, with its messages and positions (in code points). It reads
 * {@code NaN}, {@code Infinity} and {@code -Infinity}; passes lone surrogate escapes ({@code "\\ud800"}) and joins an
 * escaped pair; keeps the last of duplicated names, where the first stood; reads integers exactly (an int of more
 * than {@value #MAX_INT_DIGITS} digits is Python's {@code ValueError}, {@code sys.int_info.str_digits_check_threshold}'s
 * default limit), every other number as a {@link PythonFloat}; and refuses nesting deeper than {@value #MAX_DEPTH}
 * containers with a {@code RecursionError}.
 *
 * <p>Not thread-safe; one per text.
 */
final class PythonJson {
    /**
     * The deepest nesting read: Python's default recursion limit, every container one level of the scanner's
     * recursion. In vLLM the frames beneath the parser take a few dozen of those levels, a number not recorded.
     */
    static final int MAX_DEPTH = 1000;

    static final int MAX_INT_DIGITS = 4300;
    private static final JsonProvider PROVIDER = JsonProvider.provider();

    private static final String[] CONSTANTS = {"null", "true", "false", "NaN", "Infinity", "-Infinity"};

    private final int[] text;
    private int depth;
    /** The value last read; each reading method returns the index after it. */
    private JsonValue last = JsonValue.NULL;

    private PythonJson(int[] text) {
        this.text = text;
    }

    /** {@code json.loads} of {@code text}: the value, or {@link DecodeError} or {@link NotJson}. */
    static JsonValue loads(int[] text) {
        PythonJson json = new PythonJson(text);
        int at = json.white(0);
        int end = json.white(json.value(at));
        if (end != text.length) {
            throw new DecodeError("Extra data", end);
        }
        return json.last;
    }

    private int white(int at) {
        int i = at;
        while (i < text.length && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
            i++;
        }
        return i;
    }

    /** Reads the value at {@code at} into {@link #last}; the index after it. "Expecting value" when there is none. */
    private int value(int at) {
        if (at >= text.length) {
            throw new DecodeError("Expecting value", at);
        }
        switch (text[at]) {
            case '"' -> {
                StringBuilder s = new StringBuilder();
                int end = string(at + 1, s);
                last = PROVIDER.createValue(s.toString());
                return end;
            }
            case '{' -> {
                return nested(at, true);
            }
            case '[' -> {
                return nested(at, false);
            }
            default -> {
                return constantOrNumber(at);
            }
        }
    }

    private int nested(int at, boolean object) {
        if (++depth > MAX_DEPTH) {
            throw new NotJson("maximum recursion depth exceeded while decoding a JSON " + (object ? "object" : "array")
                    + " from a unicode string");
        }
        int end = object ? object(at + 1) : array(at + 1);
        depth--;
        return end;
    }

    private int constantOrNumber(int at) {
        for (String constant : CONSTANTS) {
            if (matches(at, constant)) {
                last = switch (constant) {
                    case "null" -> JsonValue.NULL;
                    case "true" -> JsonValue.TRUE;
                    case "false" -> JsonValue.FALSE;
                    case "NaN" -> new PythonFloat(Double.NaN);
                    case "Infinity" -> new PythonFloat(Double.POSITIVE_INFINITY);
                    default -> new PythonFloat(Double.NEGATIVE_INFINITY);
                };
                return at + constant.length();
            }
        }
        return number(at);
    }

    private boolean matches(int at, String constant) {
        if (at + constant.length() > text.length) {
            return false;
        }
        for (int i = 0; i < constant.length(); i++) {
            if (text[at + i] != constant.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?}, backing off a fraction or exponent without digits. */
    private int number(int start) {
        int i = start;
        if (text[i] == '-') {
            i++;
        }
        if (i < text.length && text[i] >= '1' && text[i] <= '9') {
            i = digits(i);
        } else if (i < text.length && text[i] == '0') {
            i++;
        } else {
            throw new DecodeError("Expecting value", start);
        }
        boolean isFloat = false;
        if (i + 1 < text.length && text[i] == '.' && digit(i + 1)) {
            isFloat = true;
            i = digits(i + 1);
        }
        if (i + 1 < text.length && (text[i] == 'e' || text[i] == 'E')) {
            int e = i + 1;
            if (e + 1 < text.length && (text[e] == '-' || text[e] == '+')) {
                e++;
            }
            if (digit(e)) {
                isFloat = true;
                i = digits(e);
            }
        }
        String literal = new String(text, start, i - start);
        if (isFloat) {
            last = new PythonFloat(Double.parseDouble(literal));
        } else {
            if (literal.length() - (literal.charAt(0) == '-' ? 1 : 0) > MAX_INT_DIGITS) {
                throw new NotJson("Exceeds the limit (" + MAX_INT_DIGITS + " digits) for integer string conversion");
            }
            last = PROVIDER.createValue(new BigInteger(literal));
        }
        return i;
    }

    private boolean digit(int i) {
        return i < text.length && text[i] >= '0' && text[i] <= '9';
    }

    private int digits(int from) {
        int i = from;
        while (digit(i)) {
            i++;
        }
        return i;
    }

    private int object(int from) {
        JsonObjectBuilder members = JsonText.object();
        int i = white(from);
        if (i < text.length && text[i] == '}') {
            last = members.build();
            return i + 1;
        }
        while (true) {
            if (i >= text.length || text[i] != '"') {
                throw new DecodeError("Expecting property name enclosed in double quotes", i);
            }
            StringBuilder key = new StringBuilder();
            i = white(string(i + 1, key));
            if (i >= text.length || text[i] != ':') {
                throw new DecodeError("Expecting ':' delimiter", i);
            }
            i = white(value(white(i + 1)));
            members.add(key.toString(), last); // a name again replaces its value where it first stood, as in a dict
            if (i < text.length && text[i] == '}') {
                last = members.build();
                return i + 1;
            }
            if (i >= text.length || text[i] != ',') {
                throw new DecodeError("Expecting ',' delimiter", i);
            }
            i = white(i + 1);
        }
    }

    private int array(int from) {
        JsonArrayBuilder items = JsonText.array();
        int i = white(from);
        if (i < text.length && text[i] == ']') {
            last = items.build();
            return i + 1;
        }
        while (true) {
            i = white(value(i));
            items.add(last);
            if (i < text.length && text[i] == ']') {
                last = items.build();
                return i + 1;
            }
            if (i >= text.length || text[i] != ',') {
                throw new DecodeError("Expecting ',' delimiter", i);
            }
            i = white(i + 1);
        }
    }

    /** Reads the string whose text starts at {@code from} (after its quote) into {@code out}; the index after it. */
    private int string(int from, StringBuilder out) {
        int i = from;
        while (true) {
            if (i >= text.length) {
                throw new DecodeError("Unterminated string starting at", from - 1);
            }
            int c = text[i];
            if (c == '"') {
                return i + 1;
            }
            if (c <= 0x1F) {
                throw new DecodeError("Invalid control character at", i);
            }
            if (c != '\\') {
                out.appendCodePoint(c);
                i++;
                continue;
            }
            if (i + 1 >= text.length) {
                throw new DecodeError("Unterminated string starting at", from - 1);
            }
            i = escape(i + 1, out);
        }
    }

    /** Reads the escape whose letter is at {@code at} into {@code out}; the index after it. */
    private int escape(int at, StringBuilder out) {
        int c = text[at];
        if (c != 'u') {
            char unescaped = switch (c) {
                case '"', '\\', '/' -> (char) c;
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                default -> throw new DecodeError("Invalid \\escape", at - 1);
            };
            out.append(unescaped);
            return at + 1;
        }
        int unit = hex(at);
        int end = at + 5;
        if (Character.isHighSurrogate((char) unit)
                && end + 6 < text.length
                && text[end] == '\\'
                && text[end + 1] == 'u') {
            int low = hex(end + 1);
            if (Character.isLowSurrogate((char) low)) {
                out.appendCodePoint(Character.toCodePoint((char) unit, (char) low));
                return end + 6;
            }
        }
        out.append((char) unit);
        return end;
    }

    /** The four hex digits after the {@code u} at {@code u}; "Invalid \\uXXXX escape" at {@code u} otherwise. */
    private int hex(int u) {
        if (u + 5 >= text.length) {
            throw new DecodeError("Invalid \\uXXXX escape", u);
        }
        int value = 0;
        for (int i = u + 1; i <= u + 4; i++) {
            int d = Character.digit(text[i] < 0x80 ? text[i] : 'x', 16);
            if (d < 0) {
                throw new DecodeError("Invalid \\uXXXX escape", u);
            }
            value = value << 4 | d;
        }
        return value;
    }

    /** Python's {@code JSONDecodeError}: its message and position in code points. */
    static final class DecodeError extends RuntimeException {
        @Serial
        private static final long serialVersionUID = 1L;

        private final String words;
        private final int position;

        DecodeError(String words, int position) {
            super(words, null, false, false);
            this.words = words;
            this.position = position;
        }

        /** The decoder's words ({@code msg}), without the line and column. */
        String words() {
            return words;
        }

        int position() {
            return position;
        }
    }

    /** Another error {@code json.loads} raises: a {@code ValueError} or {@code RecursionError}. */
    static final class NotJson extends RuntimeException {
        @Serial
        private static final long serialVersionUID = 1L;

        NotJson(String message) {
            super(message, null, false, false);
        }
    }
}
