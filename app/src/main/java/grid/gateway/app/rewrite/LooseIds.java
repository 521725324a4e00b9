package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.text.JsonEscape;
import java.util.Arrays;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Tags the ids in what follows a flaw in a JSON text ({@link JsonIdStream}; docs/stored-ids.md). Past a flaw no two
 * readers agree on what is a member: a lenient parser reads on past single quotes, comments, unquoted names, trailing
 * commas or nesting deeper than a strict one allows (Json.NET, JSON5, Go to 10,000 levels). So every {@code resp_} or
 * {@code conv_} there, wherever it stands, gets the serving cluster's tag middle ({@code <site>.<cluster>.<mac>.})
 * put in just after its underscore: whatever a reader takes for an id then names that cluster or none.
 *
 * <p>Characters are read as the most lenient of those readers decodes a string: a byte as itself, and after a
 * backslash a {@code \\uXXXX} or {@code \\xXX} escape as its character, a line end as nothing (a JSON5 line
 * continuation), any other character as its JSON short escape or as itself. Nothing is held: the bytes of a prefix go
 * on as read, the middle after its last one. One linear pass; memory: the two middles.
 *
 * <p>Not thread-safe; one per text.
 */
final class LooseIds {
    /** What {@link #decode} returns for a byte that ends no character. */
    private static final int NONE = -1;

    private static final IdKind[] KINDS = IdKind.values();

    private final UnaryOperator<String> tag;
    private final int[] matched = new int[KINDS.length];
    private final byte[] @Nullable [] middles = new byte[KINDS.length][];
    /** 0 outside an escape, 1 after a backslash, 2..5 in a {@code \\u}'s digits, 6..7 in a {@code \\x}'s, 8 after CR. */
    private int escape;

    private int unit;

    LooseIds(UnaryOperator<String> tag) {
        this.tag = tag;
    }

    /** Forgets the characters read: a new value starts. */
    void reset() {
        Arrays.fill(matched, 0);
        escape = 0;
    }

    /** Reads bytes that were handed on already (an id value held when the flaw came): they start the characters. */
    void seed(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            advance(decode(bytes[i]));
        }
    }

    /** Reads an LF that is not handed on (between two {@code data} lines of an event). */
    void lineFeed() {
        advance(decode((byte) '\n'));
    }

    /** Hands on {@code bytes[from, to)}, each id prefix followed by the tag's middle. */
    void accept(byte[] bytes, int from, int to, EventSink sink) {
        int run = from;
        for (int i = from; i < to; i++) {
            IdKind done = advance(decode(bytes[i]));
            byte[] middle = done == null ? null : middle(done);
            if (middle != null) {
                sink.event(bytes, run, i + 1 - run);
                sink.event(middle, 0, middle.length);
                run = i + 1;
            }
        }
        if (to > run) {
            sink.event(bytes, run, to - run);
        }
    }

    /** The kind whose prefix character {@code c} completes, if any. */
    private @Nullable IdKind advance(int c) {
        if (c == NONE) {
            return null;
        }
        IdKind done = null;
        for (int k = 0; k < KINDS.length; k++) {
            String prefix = KINDS[k].prefix();
            // Neither prefix holds its first character again, so a mismatch restarts at this character.
            matched[k] = c == prefix.charAt(matched[k]) ? matched[k] + 1 : c == prefix.charAt(0) ? 1 : 0;
            if (matched[k] == prefix.length()) {
                matched[k] = 0;
                done = KINDS[k];
            }
        }
        return done;
    }

    private byte @Nullable [] middle(IdKind kind) {
        byte[] middle = middles[kind.ordinal()];
        if (middle == null) {
            byte[] head = IdValue.head(kind.prefix(), tag);
            middle = head == null
                    ? new byte[0]
                    : Arrays.copyOfRange(head, kind.prefix().length(), head.length);
            middles[kind.ordinal()] = middle;
        }
        return middle.length == 0 ? null : middle;
    }

    /** The character {@code b} ends, or {@link #NONE}. */
    private int decode(byte b) {
        int c = b & 0xFF;
        if (escape == 8) {
            escape = 0;
            if (c == '\n') {
                return NONE; // the LF of a continuation's CRLF
            }
        }
        if (escape == 0) {
            if (c == '\\') {
                escape = 1;
                return NONE;
            }
            return c;
        }
        if (escape == 1) {
            return afterBackslash(c);
        }
        int digit = Character.digit(c, 16);
        if (digit < 0) {
            escape = 0; // a broken escape: this byte read as itself
            return c == '\\' ? decode(b) : c;
        }
        unit = unit << 4 | digit;
        if (escape == 5 || escape == 7) {
            escape = 0;
            return unit;
        }
        escape++;
        return NONE;
    }

    private int afterBackslash(int c) {
        escape = 0;
        switch (c) {
            case 'u' -> {
                escape = 2;
                unit = 0;
                return NONE;
            }
            case 'x' -> {
                escape = 6;
                unit = 0;
                return NONE;
            }
            case '\r' -> {
                escape = 8;
                return NONE;
            }
            case '\n' -> {
                return NONE;
            }
            case 'v' -> {
                return 0x0B;
            }
            case '0' -> {
                return 0;
            }
            default -> {
                return c < 0x80 ? JsonEscape.shortEscape((byte) c) : c;
            }
        }
    }
}
