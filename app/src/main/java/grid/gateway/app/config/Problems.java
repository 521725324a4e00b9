package grid.gateway.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The problems found while loading one serving config, each one line in the form
 * {@code key.path: value (expected: what)}, in the order found.
 *
 * <p>Each problem is a log line (a reload's refusal names them on one line), so every line is shown as one bounded
 * line, whatever text it was built from (a value, a key, a parser's message quoting the file): a control character
 * (a line break would forge a line of its own) or an invisible one (a zero-width space in a key, a right-to-left
 * override) is written as its escape, and a line longer than {@value #MAX_LINE_CHARS} characters is cut.
 *
 * <p>Not thread-safe; one per load. Values are shown through {@link #show(Object)}, which quotes and shortens
 * strings; callers never pass key material.
 */
final class Problems {
    /** Longest string value shown in a problem, in characters; longer ones are cut. */
    static final int MAX_SHOWN_CHARS = 80;
    /** Longest problem line, in characters (a cut one ends with {@code …}). */
    static final int MAX_LINE_CHARS = 400;

    private final List<String> lines = new ArrayList<>();

    /** Records that the value at {@code path} is not what was {@code expected}. */
    void add(String path, @Nullable Object value, String expected) {
        addLine(path + ": " + show(value) + " (expected: " + expected + ")");
    }

    /** Records that the required key at {@code path} is absent. */
    void missing(String path, String expected) {
        addLine(path + ": missing (expected: " + expected + ")");
    }

    /** Records a problem written as one line that starts with its key path; shown escaped and cut. */
    void addLine(String line) {
        lines.add(oneLine(line));
    }

    /** {@code line} with what it cannot show escaped, cut at {@value #MAX_LINE_CHARS} characters. */
    private static String oneLine(String line) {
        StringBuilder out = new StringBuilder(Math.min(line.length(), MAX_LINE_CHARS) + 8);
        for (int i = 0; i < line.length() && out.length() <= MAX_LINE_CHARS; ) {
            int c = line.codePointAt(i);
            if (shown(c)) {
                out.appendCodePoint(c);
            } else {
                escape(c, out);
            }
            i += Character.charCount(c);
        }
        if (out.length() > MAX_LINE_CHARS) {
            int end = MAX_LINE_CHARS - 1;
            out.setLength(Character.isHighSurrogate(out.charAt(end - 1)) ? end - 1 : end);
            out.append('…');
        }
        return out.toString();
    }

    /**
     * Whether {@code c} is shown as it is: neither a control character, nor an invisible format character, nor an
     * unpaired surrogate (which UTF-8 writes as {@code ?}).
     */
    private static boolean shown(int c) {
        return !Character.isISOControl(c)
                && Character.getType(c) != Character.FORMAT
                && Character.getType(c) != Character.SURROGATE;
    }

    boolean isEmpty() {
        return lines.isEmpty();
    }

    int size() {
        return lines.size();
    }

    /** Throws a {@link ConfigException} listing every problem, if there is one. */
    void throwIfAny() {
        if (!lines.isEmpty()) {
            throw new ConfigException(lines);
        }
    }

    /**
     * A YAML value as a problem shows it: strings quoted with JSON escapes and cut at {@value #MAX_SHOWN_CHARS}
     * characters, numbers and booleans as written, collections by their kind only.
     */
    static String show(@Nullable Object value) {
        return switch (value) {
            case null -> "null";
            case String text -> quote(text);
            case Number number -> number.toString();
            case Boolean bool -> bool.toString();
            case Map<?, ?> map -> "a mapping";
            case List<?> list -> "a list";
            default -> "a value of type " + value.getClass().getSimpleName();
        };
    }

    /**
     * A mapping key as a key path shows it: a short plain string as written, any other key as {@link #show} shows a
     * value. A key may be a collection (YAML's {@code ? [..]}), and one built of aliases stands for far more text than
     * the file holds, so no key is ever written out whole.
     */
    static String keyName(@Nullable Object key) {
        if (key instanceof String text
                && text.length() <= MAX_SHOWN_CHARS
                && text.codePoints().allMatch(Problems::shown)) {
            return text;
        }
        return show(key);
    }

    private static String quote(String text) {
        boolean cut = text.length() > MAX_SHOWN_CHARS;
        String shown = cut ? text.substring(0, MAX_SHOWN_CHARS) : text;
        StringBuilder out = new StringBuilder(shown.length() + 8).append('"');
        shown.codePoints().forEach(c -> escape(c, out));
        return out.append(cut ? "…\"" : "\"").toString();
    }

    private static void escape(int c, StringBuilder out) {
        switch (c) {
            case '"' -> out.append("\\\"");
            case '\\' -> out.append("\\\\");
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            default -> {
                if (!shown(c)) {
                    out.append(String.format("\\u%04x", c));
                } else {
                    out.appendCodePoint(c);
                }
            }
        }
    }
}
