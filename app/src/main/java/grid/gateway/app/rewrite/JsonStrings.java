package grid.gateway.app.rewrite;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads and writes the content of JSON strings: decodes escapes in content the scanner has validated, writes a Java
 * string back as JSON string content.
 *
 * <p>Stateless and thread-safe.
 */
final class JsonStrings {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private JsonStrings() {}

    /**
     * The text of the string content {@code [start, end)}: the bytes between the quotes of a string the scanner
     * accepted, so every escape is complete and every byte sequence valid UTF-8. An escaped lone surrogate stays a
     * lone {@code char}.
     */
    static String decode(byte[] b, int start, int end) {
        StringBuilder text = new StringBuilder(end - start);
        int q = start;
        while (q < end) {
            int run = q;
            while (run < end && b[run] != '\\') {
                run++;
            }
            text.append(new String(b, q, run - q, StandardCharsets.UTF_8));
            if (run == end) {
                break;
            }
            byte e = b[run + 1];
            switch (e) {
                case 'b' -> text.append('\b');
                case 'f' -> text.append('\f');
                case 'n' -> text.append('\n');
                case 'r' -> text.append('\r');
                case 't' -> text.append('\t');
                case 'u' -> {
                    text.append((char) hex4(b, run + 2));
                    q = run + 6;
                    continue;
                }
                default -> text.append((char) e); // '"', '\\' and '/' stand for themselves
            }
            q = run + 2;
        }
        return text.toString();
    }

    /**
     * {@code text} as JSON string content, without quotes: '"', '\' and control characters escaped, surrogates as
     * {@code \\uXXXX} (so even a lone one survives), everything else in UTF-8.
     */
    static byte[] content(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.write('\\');
                out.write(c);
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                out.write('\\');
                out.write('u');
                for (int shift = 12; shift >= 0; shift -= 4) {
                    out.write(HEX[(c >>> shift) & 0xF]);
                }
            } else if (c < 0x80) {
                out.write(c);
            } else if (c < 0x800) {
                out.write(0xC0 | (c >>> 6));
                out.write(0x80 | (c & 0x3F));
            } else {
                out.write(0xE0 | (c >>> 12));
                out.write(0x80 | ((c >>> 6) & 0x3F));
                out.write(0x80 | (c & 0x3F));
            }
        }
        return out.toByteArray();
    }

    private static int hex4(byte[] b, int at) {
        int value = 0;
        for (int i = at; i < at + 4; i++) {
            value = (value << 4) | Character.digit(b[i], 16);
        }
        return value;
    }
}
