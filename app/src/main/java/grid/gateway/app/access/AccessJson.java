package grid.gateway.app.access;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The members of one access line's JSON object, appended straight to the line's text.
 *
 * <p>Written by hand, not by the jakarta.json generator (docs/decisions.md: the generator measured about 6% of a
 * request's CPU samples, most of it copying every character through its own buffer). The output is byte for byte
 * what Parsson 1.1.9's generator writes, which {@code AccessJsonTest} checks over random strings and numbers: a string
 * escapes {@code "}, {@code \} and the control characters below U+0020 ({@code \b \t \n \f \r} by name, the others as
 * {@code \}{@code u00xx}, lower-case hex) and copies every other character as it is, non-ASCII and unpaired surrogates
 * included (the sink's UTF-8 encoder turns an unpaired surrogate into {@code ?}, as the generator's does); a number is
 * {@link Long#toString(long)} or {@link Double#toString(double)}.
 *
 * <p>Member names are the code's own constants and must need no escaping.
 *
 * <p>Not thread-safe: one line, on one thread.
 */
final class AccessJson {
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private final StringBuilder text;
    private boolean first = true;

    /** Starts the object in {@code text}. */
    AccessJson(StringBuilder text) {
        this.text = text;
        text.append('{');
    }

    /** A string member, or {@code null}. */
    void string(String name, @Nullable String value) {
        name(name);
        if (value == null) {
            text.append("null");
        } else {
            escaped(text, value);
        }
    }

    /** The timestamp member: {@code time} as {@code clock} writes it, a string that needs no escape. */
    void time(String name, AccessTime clock, Instant time) {
        name(name);
        text.append('"');
        clock.appendTo(text, time);
        text.append('"');
    }

    /** A count member, or {@code null} when negative (not known, or does not apply). */
    void count(String name, long value) {
        name(name);
        if (value < 0) {
            text.append("null");
        } else {
            text.append(value);
        }
    }

    /** A number member, whatever its sign. */
    void number(String name, long value) {
        name(name);
        text.append(value);
    }

    /** A boolean member. */
    void bool(String name, boolean value) {
        name(name);
        text.append(value);
    }

    /** A duration in milliseconds with microsecond precision, or {@code null} when negative. */
    void millis(String name, long nanos) {
        name(name);
        if (nanos < 0) {
            text.append("null");
        } else {
            text.append(Math.round(nanos / 1_000.0) / 1_000.0);
        }
    }

    /** Ends the object. */
    void end() {
        text.append('}');
    }

    private void name(String name) {
        text.append(first ? "\"" : ",\"").append(name).append("\":");
        first = false;
    }

    /** {@code value} as a JSON string: runs that need no escape are appended whole. */
    static void escaped(StringBuilder text, String value) {
        text.append('"');
        int plain = 0;
        int length = value.length();
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            text.append(value, plain, i);
            plain = i + 1;
            switch (c) {
                case '"', '\\' -> text.append('\\').append(c);
                case '\b' -> text.append("\\b");
                case '\t' -> text.append("\\t");
                case '\n' -> text.append("\\n");
                case '\f' -> text.append("\\f");
                case '\r' -> text.append("\\r");
                default -> text.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        text.append(value, plain, length).append('"');
    }
}
