package grid.gateway.routing.keyer;

import java.nio.charset.StandardCharsets;

/** Test fixture: the canonical stream a body produces, so tests can state it byte for byte. */
final class KeyerProbe {
    private KeyerProbe() {}

    /** The canonical stream of {@code body} (which must be keyable), without the 512-key limit. */
    static byte[] canonicalStream(ApiDialect dialect, byte[] body) {
        ValidatedBody validated = BodyIndex.validate(body);
        ByteSink sink = new ByteSink(body.length);
        DialectWalker.of(dialect).walk(validated.root(), new PromptWriter(validated.nav(), sink));
        return sink.toByteArray();
    }

    /** The canonical stream, with markers shown as {@code <F7>} and the like, and other text as is. */
    static String shown(ApiDialect dialect, String body) {
        return show(canonicalStream(dialect, body.getBytes(StandardCharsets.UTF_8)));
    }

    /** Bytes as text, with every byte that is not printable ASCII written as {@code <XX>}. */
    static String show(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            int c = b & 0xFF;
            if (c >= 0x20 && c < 0x7F) {
                out.append((char) c);
            } else {
                out.append(String.format("<%02X>", c));
            }
        }
        return out.toString();
    }
}
