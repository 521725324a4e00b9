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

    /** Python quotes with {@code '} unless the text holds a {@code '} and no {@code "}. */
    private static void string(String text, StringBuilder out) {
        char quote = text.indexOf('\'') >= 0 && text.indexOf('"') < 0 ? '"' : '\'';
        out.append(quote);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c == quote) {
                        out.append('\\').append(c);
                    } else if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append(quote);
    }

    /** An integral JSON number is a Python int; any other a float. */
    private static void number(JsonNumber number, StringBuilder out) {
        if (number.isIntegral()) {
            out.append(number.bigIntegerValue());
        } else {
            double d = number.doubleValue();
            out.append(d == Math.rint(d) && Math.abs(d) < 1e16 ? String.format("%.1f", d) : Double.toString(d));
        }
    }
}
