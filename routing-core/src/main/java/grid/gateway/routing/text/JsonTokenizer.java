package grid.gateway.routing.text;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.Objects;

/**
 * The project's one JSON grammar: checks that a byte range is one JSON text (RFC 8259, strict UTF-8 strings, at most
 * {@link #MAX_DEPTH} levels) and reports each token to a {@link JsonListener} by byte offsets, in one pass.
 *
 * <p>Both readers of untrusted JSON use it: the prompt keyer (which records the root members and the long strings)
 * and the gateway's stored-id rewriting (which finds the {@code id}, {@code previous_response_id} and
 * {@code conversation} members). One grammar and one depth limit therefore decide what both accept.
 *
 * <p>Iterative, so a text nested 100,000 levels deep costs one linear scan and {@link Outcome#TOO_DEEP}, never a
 * stack overflow. Strings are scanned eight bytes at a time ({@link Swar}). UTF-8 is checked strictly ({@link Utf8}:
 * no overlong forms, no encoded surrogates); an escaped lone surrogate ({@code \ud800}) is valid JSON and is kept. No
 * byte order mark, no {@code NaN}, no single quotes, nothing after the value but white space. {@link Grammar#PYTHON}
 * widens this to what Python's {@code json} module (vLLM's parser) reads once a body's bytes are decoded.
 *
 * <p>Never throws on any bytes; an exception the listener throws reaches the caller. Not thread-safe; one per text.
 */
public final class JsonTokenizer {
    /** The deepest nesting read: 256 containers (Python's json, and so vLLM, fails near 1,000). */
    public static final int MAX_DEPTH = 256;

    /** What a range of bytes turned out to be. */
    public enum Outcome {
        /** One JSON text, within the depth limit. */
        VALID,
        /** Not one JSON text: bad grammar, bad UTF-8, a truncated value, or bytes after it. */
        INVALID,
        /** Valid as far as read, but a container opens deeper than {@link #MAX_DEPTH}; the rest is not read. */
        TOO_DEEP
    }

    /** Which texts a read accepts. */
    public enum Grammar {
        /** RFC 8259 in strict UTF-8, at most {@link #MAX_DEPTH} levels: what every reader of the gateway accepts. */
        STRICT,
        /**
         * What Python's {@code json.loads} reads from UTF-8 bytes, vLLM's parser: {@link #STRICT}, and the literals
         * {@code NaN}, {@code Infinity} and {@code -Infinity}, surrogates encoded in UTF-8 (its decoder's
         * {@code surrogatepass}), and any depth (an engine's own limit, near 1,000 or far deeper, refuses the body
         * itself). Only for finding what an engine reads in a body the strict grammar refused; never {@code TOO_DEEP}.
         */
        PYTHON
    }

    /** The lead bytes of the two-byte UTF-8 sequences, C2..DF, as Java's signed bytes. */
    private static final int TWO_BYTE_LEAD_MIN = (byte) 0xC2;

    private static final int TWO_BYTE_LEAD_MAX = (byte) 0xDF;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};
    private static final byte[] NAN = {'N', 'a', 'N'};
    private static final byte[] INFINITY = {'I', 'n', 'f', 'i', 'n', 'i', 't', 'y'};

    private final byte[] b;
    private final int to;
    private final JsonListener listener;
    private final boolean python;
    /** One bit per open container, set for an object (clear for an array), innermost at {@code depth - 1}. */
    private long[] objects = new long[MAX_DEPTH / Long.SIZE];

    private int depth;
    private int p;
    /** Whether the string {@link #string} read last holds an escape. */
    private boolean escaped;

    private JsonTokenizer(byte[] b, int from, int to, JsonListener listener, Grammar grammar) {
        this.b = b;
        this.p = from;
        this.to = to;
        this.listener = listener;
        this.python = grammar == Grammar.PYTHON;
    }

    /** Reads {@code text[from, to)} as one JSON text, reporting its tokens to {@code listener} on the way. */
    public static Outcome tokenize(byte[] text, int from, int to, JsonListener listener) {
        return tokenize(text, from, to, listener, Grammar.STRICT);
    }

    /** Reads {@code text[from, to)} as one JSON text of {@code grammar}, reporting its tokens on the way. */
    public static Outcome tokenize(byte[] text, int from, int to, JsonListener listener, Grammar grammar) {
        requireNonNull(text, "text");
        requireNonNull(listener, "listener");
        requireNonNull(grammar, "grammar");
        Objects.checkFromToIndex(from, to, text.length);
        try {
            new JsonTokenizer(text, from, to, listener, grammar).document();
            return Outcome.VALID;
        } catch (Refusal refusal) {
            return refusal.outcome;
        }
    }

    /** Reads the whole of {@code text} as one JSON text, reporting its tokens to {@code listener} on the way. */
    public static Outcome tokenize(byte[] text, JsonListener listener) {
        return tokenize(text, 0, text.length, listener);
    }

    /** Whether {@code text} is one JSON text of any type, within the depth limit. */
    public static boolean isValid(byte[] text) {
        return tokenize(text, JsonListener.NONE) == Outcome.VALID;
    }

    /** The first index at or after {@code from}, before {@code to}, that is not JSON white space; or {@code to}. */
    public static int skipWhiteSpace(byte[] text, int from, int to) {
        int q = from;
        while (q < to) {
            byte c = text[q];
            // Every white-space byte is at most ' ', and the byte after a token seldom is: one comparison decides most.
            if (c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t')) {
                break;
            }
            q++;
        }
        return q;
    }

    private void document() {
        p = ws(p);
        while (true) {
            if (value()) {
                if (at(p) != closer()) {
                    if (isObject(depth - 1)) {
                        name();
                    }
                    continue;
                }
                close();
            }
            if (afterValue()) {
                return;
            }
        }
    }

    /** Past a value: closes finished containers; true at the end of the text, false when another value follows. */
    private boolean afterValue() {
        while (true) {
            p = ws(p);
            if (depth == 0) {
                if (p != to) {
                    throw Refusal.INVALID;
                }
                return true;
            }
            byte c = at(p);
            if (c == ',') {
                p = ws(p + 1);
                if (isObject(depth - 1)) {
                    name();
                }
                return false;
            }
            if (c != closer()) {
                throw Refusal.INVALID;
            }
            close();
        }
    }

    /** Reads a scalar ({@code p} after it), or opens a container and returns true ({@code p} at its first token). */
    private boolean value() {
        int start = p;
        byte c = at(p);
        switch (c) {
            case '{', '[' -> {
                if (depth == MAX_DEPTH && !python) {
                    throw Refusal.TOO_DEEP;
                }
                listener.open(start, c == '{', depth);
                opened(c == '{');
                p = ws(p + 1);
                return true;
            }
            case '"' -> {
                p = string(p);
                listener.string(start, p, escaped, depth);
                return false;
            }
            case 't' -> p = literal(p, TRUE);
            case 'f' -> p = literal(p, FALSE);
            case 'n' -> p = literal(p, NULL);
            default -> p = python ? pythonNumber(p) : number(p);
        }
        listener.scalar(start, p, depth);
        return false;
    }

    /** Reads a member name and its colon; {@code p} ends at the member's value. */
    private void name() {
        int start = p;
        if (at(p) != '"') {
            throw Refusal.INVALID;
        }
        p = string(p);
        listener.name(start, p, escaped, depth);
        p = ws(p);
        if (at(p) != ':') {
            throw Refusal.INVALID;
        }
        p = ws(p + 1);
    }

    private void close() {
        p++;
        depth--;
        listener.close(p, depth);
    }

    /** From an opening quote: the index after the closing quote; sets {@link #escaped}. */
    private int string(int start) {
        int q = start + 1;
        escaped = false;
        while (true) {
            q = Swar.special(b, q, to);
            if (q >= to) {
                throw Refusal.INVALID;
            }
            int c = b[q];
            if (c == '"') {
                return q + 1;
            } else if (c == '\\') {
                escaped = true;
                q = escape(q);
            } else if (c >= 0) {
                throw Refusal.INVALID; // a raw control character
            } else if (c >= TWO_BYTE_LEAD_MIN && c <= TWO_BYTE_LEAD_MAX && q + 1 < to && (b[q + 1] & 0xC0) == 0x80) {
                // A two-byte sequence (U+0080..U+07FF: accents, most non-ASCII prose) is checked here in place, as
                // Utf8.next would check it (lead C2..DF, one continuation byte); longer ones go through Utf8.next.
                q += 2;
            } else {
                q = python ? Utf8.nextPassingSurrogates(b, q, to) : Utf8.next(b, q, to);
                if (q < 0) {
                    throw Refusal.INVALID;
                }
            }
        }
    }

    /** The index after the escape whose backslash is at {@code q}. */
    private int escape(int q) {
        switch (at(q + 1)) {
            case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
                return q + 2;
            }
            case 'u' -> {
                for (int i = q + 2; i < q + 6; i++) {
                    if (Character.digit(at(i), 16) < 0) {
                        throw Refusal.INVALID;
                    }
                }
                return q + 6;
            }
            default -> throw Refusal.INVALID;
        }
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

    /** One or more digits from {@code q}: the index after them. */
    private int digits(int q) {
        if (!isDigit(at(q))) {
            throw Refusal.INVALID;
        }
        int i = q + 1;
        while (isDigit(at(i))) {
            i++;
        }
        return i;
    }

    /** A number, or one of Python's {@code NaN}, {@code Infinity} and {@code -Infinity}: the index after it. */
    private int pythonNumber(int start) {
        int q = at(start) == '-' ? start + 1 : start;
        if (at(q) == 'I') {
            return literal(q, INFINITY);
        }
        return q == start && at(q) == 'N' ? literal(q, NAN) : number(start);
    }

    private int literal(int start, byte[] word) {
        for (int i = 0; i < word.length; i++) {
            if (at(start + i) != word[i]) {
                throw Refusal.INVALID;
            }
        }
        return start + word.length;
    }

    /** Notes a container opening at {@link #depth} and goes one level down. */
    private void opened(boolean object) {
        int word = depth >>> 6;
        if (word == objects.length) {
            objects = Arrays.copyOf(objects, objects.length * 2);
        }
        long bit = 1L << (depth & 63);
        objects[word] = object ? objects[word] | bit : objects[word] & ~bit;
        depth++;
    }

    private boolean isObject(int level) {
        return (objects[level >>> 6] & (1L << (level & 63))) != 0;
    }

    private byte closer() {
        return isObject(depth - 1) ? (byte) '}' : (byte) ']';
    }

    private int ws(int from) {
        return skipWhiteSpace(b, from, to);
    }

    /** The byte at {@code i}, or 0 past the end (0 is never valid where a token is expected). */
    private byte at(int i) {
        return i < to ? b[i] : 0;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Unwinds the scan from any depth to {@link #tokenize}, which turns it into an {@link Outcome}; never leaves this
     * class. Shared and immutable: no stack trace, no suppressed list, so refusing a stream of hostile texts is cheap.
     */
    private static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private static final Refusal INVALID = new Refusal(Outcome.INVALID);
        private static final Refusal TOO_DEEP = new Refusal(Outcome.TOO_DEEP);

        private final transient Outcome outcome;

        private Refusal(Outcome outcome) {
            super(outcome.name(), null, false, false);
            this.outcome = outcome;
        }
    }
}
