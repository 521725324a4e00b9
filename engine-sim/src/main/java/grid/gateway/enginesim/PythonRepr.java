package grid.gateway.enginesim;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;

/**
 * A JSON value written as Python's {@code repr} of the value {@code json.loads} makes of it: vLLM's validation
 * messages quote the refused body that way ({@code {'model': 'tiny-llama'}}, {@code True}, {@code None}).
 *
 * <p>Stateless.
 */
final class PythonRepr {
    private PythonRepr() {}

    static String of(JsonValue value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(JsonValue value, StringBuilder out) {
        switch (value.getValueType()) {
            case OBJECT -> {
                out.append('{');
                String separator = "";
                for (var member : ((JsonObject) value).entrySet()) {
                    out.append(separator);
                    string(member.getKey(), out);
                    out.append(": ");
                    write(member.getValue(), out);
                    separator = ", ";
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                String separator = "";
                for (JsonValue item : (JsonArray) value) {
                    out.append(separator);
                    write(item, out);
                    separator = ", ";
                }
                out.append(']');
            }
            case STRING -> string(((JsonString) value).getString(), out);
            case NUMBER -> number((JsonNumber) value, out);
            case TRUE -> out.append("True");
            case FALSE -> out.append("False");
            case NULL -> out.append("None");
        }
    }

    /**
     * Python quotes with {@code '} unless the text holds a {@code '} and no {@code "}, and escapes what
     * {@code str.isprintable} calls unprintable (controls, format characters, lone surrogates, private use,
     * unassigned code points, separators other than the space) with Python's escapes: a backslash, then {@code x}
     * and two hex digits, {@code u} and four, or {@code U} and eight.
     */
    private static void string(String text, StringBuilder out) {
        char quote = text.indexOf('\'') >= 0 && text.indexOf('"') < 0 ? '"' : '\'';
        out.append(quote);
        int i = 0;
        while (i < text.length()) {
            int c = text.codePointAt(i);
            i += Character.charCount(c);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == quote) {
                        out.append('\\').appendCodePoint(c);
                    } else if (printable(c)) {
                        out.appendCodePoint(c);
                    } else if (c < 0x100) {
                        out.append(String.format("\\x%02x", c));
                    } else if (c < 0x10000) {
                        out.append(String.format("\\u%04x", c));
                    } else {
                        out.append(String.format("\\U%08x", c));
                    }
                }
            }
        }
        out.append(quote);
    }

    private static boolean printable(int c) {
        if (c == ' ') {
            return true;
        }
        return switch (Character.getType(c)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.SURROGATE,
                    Character.PRIVATE_USE,
                    Character.UNASSIGNED,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR,
                    Character.SPACE_SEPARATOR -> false;
            default -> true;
        };
    }

    /** An int as Python writes it; a float as its {@code repr} ({@code 0.5}, {@code 1e+16}, {@code nan}, {@code inf}). */
    private static void number(JsonNumber number, StringBuilder out) {
        if (number instanceof PythonFloat python) {
            double d = python.doubleValue();
            out.append(Double.isNaN(d) ? "nan" : Double.isInfinite(d) ? (d > 0 ? "inf" : "-inf") : PythonFloat.repr(d));
        } else if (number.isIntegral()) {
            out.append(number.bigIntegerValue());
        } else {
            out.append(PythonFloat.repr(number.doubleValue()));
        }
    }
}
