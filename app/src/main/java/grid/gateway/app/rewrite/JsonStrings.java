package grid.gateway.app.rewrite;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a Java string back as JSON string content (routing-core's {@code JsonEscape} reads it).
 *
 * <p>Stateless and thread-safe.
 */
final class JsonStrings {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private JsonStrings() {}

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
}
