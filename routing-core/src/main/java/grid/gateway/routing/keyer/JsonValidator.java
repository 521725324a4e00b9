package grid.gateway.routing.keyer;

import grid.gateway.routing.text.Swar;
import grid.gateway.routing.text.Utf8;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The keyer's first pass: checks that a body is one JSON text (RFC 8259 grammar, UTF-8 strings, at most
 * {@link #MAX_DEPTH} levels) and records where the root object's members and the long strings are.
 *
 * <p>Iterative, so a body nested 100,000 levels deep costs one linear scan and a {@link NoKeysReason#PARSER_LIMIT},
 * never a stack overflow. Strings are scanned eight bytes at a time ({@link Swar}). UTF-8 is checked strictly
 * (no overlong forms, no encoded surrogates); an escaped lone surrogate ({@code \ud800}) is valid JSON and is kept.
 *
 * <p>Not thread-safe; one per body.
 */
final class JsonValidator {
    /** The deepest nesting the keyer reads; deeper bodies get {@link NoKeysReason#PARSER_LIMIT}. */
    static final int MAX_DEPTH = 256;
    /** Strings at least this long (as sent, quotes included) are indexed so later passes skip them in one step. */
    static final int LONG_STRING = 512;

    private static final byte OBJECT = 1;
    private static final byte ARRAY = 2;

    private final byte[] b;
    private final int n;
    private final byte[] stack = new byte[MAX_DEPTH];
    private int depth;
    private int p;
    private int[] longStrings = new int[0];
    private int longCount;
    private @Nullable Members root;
    private int memberKeyStart = -1;
    private int memberKeyEnd;
    private int memberValueStart;

    private JsonValidator(byte[] body) {
        this.b = body;
        this.n = body.length;
    }

    /**
     * Validates a whole body whose root must be an object.
     *
     * @throws NoKeysSignal with {@code INVALID_JSON}, {@code PARSER_LIMIT} or {@code NOT_AN_OBJECT}
     */
    static ValidatedBody validate(byte[] body) {
        JsonValidator validator = new JsonValidator(body);
        validator.document();
        JsonNav nav = new JsonNav(body, Arrays.copyOf(validator.longStrings, validator.longCount * 2));
        if (validator.root == null) {
            throw new NoKeysSignal(NoKeysReason.NOT_AN_OBJECT);
        }
        return new ValidatedBody(nav, validator.root);
    }

    /** Whether {@code text} is one valid JSON text of any type, within the depth limit. */
    static boolean isValid(byte[] text) {
        try {
            new JsonValidator(text).document();
            return true;
        } catch (NoKeysSignal invalid) {
            return false;
        }
    }

    private void document() {
        p = ws(0);
        if (at(p) == '{') {
            root = new Members(b);
        }
        while (true) {
            if (value()) {
                byte close = stack[depth - 1] == OBJECT ? (byte) '}' : (byte) ']';
                if (at(p) == close) {
                    p++;
                    depth--;
                } else {
                    if (stack[depth - 1] == OBJECT) {
                        key();
                    }
                    continue;
                }
            }
            if (afterValue()) {
                return;
            }
        }
    }

    /** Closes finished containers; true when the document is complete, false when another value follows. */
    private boolean afterValue() {
        while (true) {
            int valueEnd = p;
            // A member key at depth 1 was read in the root object, so root is set (null only for a non-object root).
            if (depth == 1 && memberKeyStart >= 0 && root != null) {
                root.add(memberKeyStart, memberKeyEnd, memberValueStart, valueEnd);
                memberKeyStart = -1;
            }
            p = ws(p);
            if (depth == 0) {
                if (p != n) {
                    throw invalid();
                }
                return true;
            }
            byte c = at(p);
            if (c == ',') {
                p = ws(p + 1);
                if (stack[depth - 1] == OBJECT) {
                    key();
                }
                return false;
            }
            if (c == (stack[depth - 1] == OBJECT ? '}' : ']')) {
                p++;
                depth--;
                continue;
            }
            throw invalid();
        }
    }

    /** Parses a scalar, or opens a container and returns true with {@code p} at its first token. */
    private boolean value() {
        byte c = at(p);
        switch (c) {
            case '{', '[' -> {
                if (depth == MAX_DEPTH) {
                    throw new NoKeysSignal(NoKeysReason.PARSER_LIMIT);
                }
                stack[depth++] = c == '{' ? OBJECT : ARRAY;
                p = ws(p + 1);
                return true;
            }
            case '"' -> p = string(p);
            case 't' -> literal("true");
            case 'f' -> literal("false");
            case 'n' -> literal("null");
            default -> {
                if (c != '-' && (c < '0' || c > '9')) {
                    throw invalid();
                }
                p = number(p);
            }
        }
        return false;
    }

    private void key() {
        if (at(p) != '"') {
            throw invalid();
        }
        int keyStart = p;
        p = string(p);
        int keyEnd = p;
        p = ws(p);
        if (at(p) != ':') {
            throw invalid();
        }
        p = ws(p + 1);
        if (depth == 1) {
            memberKeyStart = keyStart;
            memberKeyEnd = keyEnd;
            memberValueStart = p;
        }
    }

    private int string(int start) {
        int q = start + 1;
        while (true) {
            q = Swar.special(b, q, n);
            if (q >= n) {
                throw invalid();
            }
            int c = b[q];
            if (c == '"') {
                if (q + 1 - start >= LONG_STRING) {
                    indexLongString(start, q + 1);
                }
                return q + 1;
            } else if (c == '\\') {
                q = escape(q);
            } else if (c >= 0) {
                throw invalid(); // a control character
            } else {
                q = utf8(q);
            }
        }
    }

    private int escape(int q) {
        byte e = at(q + 1);
        switch (e) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return q + 2;
            }
            case 'u' -> {
                for (int i = q + 2; i < q + 6; i++) {
                    if (Character.digit(at(i), 16) < 0) {
                        throw invalid();
                    }
                }
                return q + 6;
            }
            default -> throw invalid();
        }
    }

    /** Validates the UTF-8 sequence that starts at {@code q} and returns the index after it. */
    private int utf8(int q) {
        int next = Utf8.next(b, q, n);
        if (next < 0) {
            throw invalid();
        }
        return next;
    }

    private int number(int start) {
        int q = start;
        if (at(q) == '-') {
            q++;
        }
        if (at(q) == '0') {
            q++;
        } else {
            q = digits(q);
        }
        if (at(q) == '.') {
            q = digits(q + 1);
        }
        if (at(q) == 'e' || at(q) == 'E') {
            q++;
            if (at(q) == '+' || at(q) == '-') {
                q++;
            }
            q = digits(q);
        }
        return q;
    }

    /** One or more digits from {@code q}; the index after them. */
    private int digits(int q) {
        if (!isDigit(at(q))) {
            throw invalid();
        }
        int i = q + 1;
        while (isDigit(at(i))) {
            i++;
        }
        return i;
    }

    private void literal(String word) {
        for (int i = 0; i < word.length(); i++) {
            if (at(p + i) != word.charAt(i)) {
                throw invalid();
            }
        }
        p += word.length();
    }

    private void indexLongString(int start, int end) {
        if (longCount * 2 == longStrings.length) {
            longStrings = Arrays.copyOf(longStrings, Math.max(16, longStrings.length * 2));
        }
        longStrings[longCount * 2] = start;
        longStrings[longCount * 2 + 1] = end;
        longCount++;
    }

    private int ws(int from) {
        return JsonNav.skipWhiteSpace(b, from);
    }

    /** The byte at {@code i}, or 0 past the end (0 is never valid where a token is expected). */
    private byte at(int i) {
        return i < n ? b[i] : 0;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static NoKeysSignal invalid() {
        return new NoKeysSignal(NoKeysReason.INVALID_JSON);
    }
}
