package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Test fixture: writes a tree of {@link Map}, {@link List}, strings, numbers, booleans and nulls as JSON text, in
 * several equivalent spellings (member order, white space, escapes), so tests can show that keys ignore them.
 */
final class JsonText {
    private final Random random;
    private final boolean shuffle;
    private final boolean spaces;
    private final boolean escapeLetters;

    private JsonText(Random random, boolean shuffle, boolean spaces, boolean escapeLetters) {
        this.random = random;
        this.shuffle = shuffle;
        this.spaces = spaces;
        this.escapeLetters = escapeLetters;
    }

    /** Compact JSON in insertion order. */
    static String compact(Object value) {
        return new JsonText(new Random(0), false, false, false).write(value);
    }

    /** Compact JSON as UTF-8 bytes. */
    static byte[] bytes(Object value) {
        return compact(value).getBytes(StandardCharsets.UTF_8);
    }

    /** Another spelling of the same value: members shuffled, white space added, letters escaped, as asked. */
    static String spelled(Object value, long seed, boolean shuffle, boolean spaces, boolean escapeLetters) {
        return new JsonText(new Random(seed), shuffle, spaces, escapeLetters).write(value);
    }

    /** An ordered map from alternating keys and values. */
    static Map<String, Object> obj(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    /** A list (nulls allowed). */
    static List<Object> arr(Object... values) {
        List<Object> list = new ArrayList<>();
        for (Object value : values) {
            list.add(value);
        }
        return list;
    }

    private String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private void write(Object value, StringBuilder out) {
        if (value instanceof Map<?, ?> map) {
            List<Map.Entry<?, ?>> entries = new ArrayList<>(map.entrySet());
            if (shuffle) {
                java.util.Collections.shuffle(entries, random);
            }
            out.append('{');
            for (int i = 0; i < entries.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                space(out);
                string((String) entries.get(i).getKey(), out);
                space(out);
                out.append(':');
                space(out);
                write(entries.get(i).getValue(), out);
            }
            space(out);
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                space(out);
                write(list.get(i), out);
            }
            space(out);
            out.append(']');
        } else if (value instanceof String text) {
            string(text, out);
        } else {
            out.append(value); // numbers, booleans, null
        }
    }

    private void space(StringBuilder out) {
        if (spaces) {
            out.append(" \n\t\r".charAt(random.nextInt(4)));
        }
    }

    private void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || (escapeLetters && Character.isLetter(c) && random.nextBoolean())) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
