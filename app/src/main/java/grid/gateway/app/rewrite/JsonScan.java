package grid.gateway.app.rewrite;

import grid.gateway.routing.text.Swar;
import grid.gateway.routing.text.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One pass over a JSON text that checks it (RFC 8259 grammar, strict UTF-8) and reports, as it meets them, the
 * string values of members named {@code id}, {@code previous_response_id} or {@code conversation}, with where they
 * sit: in the root object, in the object that is the root's {@code conversation} member, or deeper.
 *
 * <p>Reports arrive before the end of the text is checked, so a caller keeps them only when {@link #scan} returns
 * true. The scan is iterative with a stack that grows with the nesting (at most one byte per byte of text), so any
 * depth costs one linear pass and never a stack overflow; nothing here throws on any text. A member name written with
 * escapes ({@code "\u0069d"}) is decoded before it is compared, as the engine's parser would.
 *
 * <p>Not thread-safe; one per text.
 */
final class JsonScan {
    /** The member names whose string values are reported. */
    enum Name {
        ID,
        PREVIOUS_RESPONSE_ID,
        CONVERSATION,
        /** Any other member, or a value that is no member's (the root, an array element). */
        OTHER
    }

    /** Where a reported member sits. */
    enum Place {
        /** A member of the root object. */
        ROOT,
        /** A member of the object that is the value of the root object's {@code conversation} member. */
        CONVERSATION_OBJECT,
        /** Anywhere else. */
        NESTED
    }

    /** Receives the reported string values. */
    @FunctionalInterface
    interface Listener {
        /**
         * One string value of a member with an interesting name.
         *
         * @param start the index of its first content byte, just after the opening quote
         * @param end the index of its closing quote
         * @param escaped whether the content holds a backslash escape
         */
        void member(Name name, Place place, int start, int end, boolean escaped);
    }

    /** An escaped name longer than this (each char at most six bytes) cannot spell a reported name. */
    private static final int MAX_ESCAPED_NAME = 6 * 20;

    private static final byte[] ID = ascii("id");
    private static final byte[] PREVIOUS_RESPONSE_ID = ascii("previous_response_id");
    private static final byte[] CONVERSATION = ascii("conversation");
    private static final byte[] TRUE = ascii("true");
    private static final byte[] FALSE = ascii("false");
    private static final byte[] NULL = ascii("null");

    /** Stack entry bits: the container is an object; the container is the value of a {@code conversation} member. */
    private static final int OBJECT = 1;

    private static final int IN_CONVERSATION = 2;
    private static final int FAIL = -1;
    private static final int SCALAR = 0;
    private static final int OPENED = 1;
    private static final int MORE = 2;
    private static final int DONE = 3;

    private final byte[] b;
    private final int to;
    private final Listener listener;
    private byte[] stack = new byte[16];
    private int depth;
    private int p;
    private boolean escaped;
    private Name pending = Name.OTHER;

    private JsonScan(byte[] b, int from, int to, Listener listener) {
        this.b = b;
        this.p = from;
        this.to = to;
        this.listener = listener;
    }

    /** Whether {@code b[from, to)} is one JSON text; reports its interesting members to {@code listener} on the way. */
    static boolean scan(byte[] b, int from, int to, Listener listener) {
        return new JsonScan(b, from, to, listener).document();
    }

    private boolean document() {
        p = ws(p);
        while (true) {
            int read = value();
            if (read == FAIL) {
                return false;
            }
            if (read == OPENED) {
                if (at(p) != closer()) {
                    if (isObject() && !key()) {
                        return false;
                    }
                    continue;
                }
                p++;
                depth--;
            }
            int next = afterValue();
            if (next != MORE) {
                return next == DONE;
            }
        }
    }

    /** Past a value: closes finished containers, then reports the end of the text or the start of the next value. */
    private int afterValue() {
        while (true) {
            p = ws(p);
            if (depth == 0) {
                return p == to ? DONE : FAIL;
            }
            byte c = at(p);
            if (c == ',') {
                p = ws(p + 1);
                return !isObject() || key() ? MORE : FAIL;
            }
            if (c != closer()) {
                return FAIL;
            }
            p++;
            depth--;
        }
    }

    /** Reads a scalar (p after it), or opens a container (p at its first token). */
    private int value() {
        Name name = pending;
        pending = Name.OTHER;
        byte c = at(p);
        switch (c) {
            case '{', '[' -> {
                push((c == '{' ? OBJECT : 0) | (name == Name.CONVERSATION ? IN_CONVERSATION : 0));
                p = ws(p + 1);
                return OPENED;
            }
            case '"' -> {
                int start = p + 1;
                if (!string()) {
                    return FAIL;
                }
                if (name != Name.OTHER) {
                    listener.member(name, place(), start, p - 1, escaped);
                }
                return SCALAR;
            }
            case 't' -> {
                return literal(TRUE);
            }
            case 'f' -> {
                return literal(FALSE);
            }
            case 'n' -> {
                return literal(NULL);
            }
            default -> {
                return number();
            }
        }
    }

    /** Reads a member name and its colon; p ends at the member's value. */
    private boolean key() {
        if (at(p) != '"') {
            return false;
        }
        int start = p + 1;
        if (!string()) {
            return false;
        }
        Name name = classify(start, p - 1);
        p = ws(p);
        if (at(p) != ':') {
            return false;
        }
        p = ws(p + 1);
        pending = name;
        return true;
    }

    private Name classify(int start, int end) {
        if (escaped) {
            return end - start <= MAX_ESCAPED_NAME ? classify(JsonStrings.decode(b, start, end)) : Name.OTHER;
        }
        if (Arrays.equals(b, start, end, ID, 0, ID.length)) {
            return Name.ID;
        }
        if (Arrays.equals(b, start, end, PREVIOUS_RESPONSE_ID, 0, PREVIOUS_RESPONSE_ID.length)) {
            return Name.PREVIOUS_RESPONSE_ID;
        }
        if (Arrays.equals(b, start, end, CONVERSATION, 0, CONVERSATION.length)) {
            return Name.CONVERSATION;
        }
        return Name.OTHER;
    }

    private static Name classify(String name) {
        return switch (name) {
            case "id" -> Name.ID;
            case "previous_response_id" -> Name.PREVIOUS_RESPONSE_ID;
            case "conversation" -> Name.CONVERSATION;
            default -> Name.OTHER;
        };
    }

    private Place place() {
        if (depth == 1) {
            return Place.ROOT;
        }
        // The root is an object whenever its child is some member's value.
        return depth == 2 && (stack[1] & (OBJECT | IN_CONVERSATION)) == (OBJECT | IN_CONVERSATION)
                ? Place.CONVERSATION_OBJECT
                : Place.NESTED;
    }

    /** From an opening quote at p: moves p past the closing quote and sets {@link #escaped}. */
    private boolean string() {
        int q = p + 1;
        escaped = false;
        while (true) {
            q = Swar.special(b, q, to);
            if (q >= to) {
                return false;
            }
            int c = b[q];
            if (c == '"') {
                p = q + 1;
                return true;
            }
            if (c == '\\') {
                escaped = true;
                q = escape(q);
            } else if (c >= 0) {
                return false; // a raw control character
            } else {
                q = Utf8.next(b, q, to);
            }
            if (q < 0) {
                return false;
            }
        }
    }

    /** The index after the escape at {@code q}, or -1. */
    private int escape(int q) {
        switch (at(q + 1)) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return q + 2;
            }
            case 'u' -> {
                for (int i = q + 2; i < q + 6; i++) {
                    if (Character.digit(at(i), 16) < 0) {
                        return FAIL;
                    }
                }
                return q + 6;
            }
            default -> {
                return FAIL;
            }
        }
    }

    private int number() {
        int q = p;
        if (at(q) == '-') {
            q++;
        }
        if (at(q) == '0') {
            q++;
        } else {
            q = digits(q);
        }
        if (q >= 0 && at(q) == '.') {
            q = digits(q + 1);
        }
        if (q >= 0 && (at(q) == 'e' || at(q) == 'E')) {
            q++;
            if (at(q) == '+' || at(q) == '-') {
                q++;
            }
            q = digits(q);
        }
        if (q < 0) {
            return FAIL;
        }
        p = q;
        return SCALAR;
    }

    /** One or more digits from {@code q}: the index after them, or -1. */
    private int digits(int q) {
        int i = q;
        while (isDigit(at(i))) {
            i++;
        }
        return i > q ? i : FAIL;
    }

    private int literal(byte[] word) {
        if (to - p < word.length || !Arrays.equals(b, p, p + word.length, word, 0, word.length)) {
            return FAIL;
        }
        p += word.length;
        return SCALAR;
    }

    private void push(int entry) {
        if (depth == stack.length) {
            stack = Arrays.copyOf(stack, depth * 2);
        }
        stack[depth++] = (byte) entry;
    }

    private boolean isObject() {
        return (stack[depth - 1] & OBJECT) != 0;
    }

    private byte closer() {
        return isObject() ? (byte) '}' : (byte) ']';
    }

    private int ws(int from) {
        int q = from;
        while (q < to) {
            byte c = b[q];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                break;
            }
            q++;
        }
        return q;
    }

    /** The byte at {@code i}, or 0 past the end (0 is never valid where a token is expected). */
    private byte at(int i) {
        return i < to ? b[i] : 0;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
