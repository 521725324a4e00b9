package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.text.JsonEscape;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The tagged form of an id member's string value, read as a client's JSON parser reads it (docs/design.md §5): a value
 * whose decoded text starts with {@code resp_} or {@code conv_} is an id however it is written (one
 * written with escapes too), and goes out as its tag's head, written plainly, followed by the value's bytes after its prefix exactly
 * as the engine wrote them. Decoded, that is the tag of the decoded id; for an id written plainly it is the tag's text
 * byte for byte. Both the whole-text tagger and the streaming one write ids this way, so their bytes agree.
 *
 * <p>Stateless and thread-safe.
 */
final class IdValue {
    /** A character every engine id may hold: added to a prefix to learn how a tag begins. */
    private static final char ID_CHARACTER = '0';

    private IdValue() {}

    /**
     * The tagged content of the whole string content {@code raw[from, to)} (a valid JSON string's, escapes whole), or
     * null when it stays as it is: no id prefix as decoded, or the tag function refuses the id or keeps it.
     */
    static byte @Nullable [] tagged(byte[] raw, int from, int to, boolean escaped, UnaryOperator<String> tag) {
        String engineId =
                escaped ? JsonEscape.text(raw, from, to) : new String(raw, from, to - from, StandardCharsets.UTF_8);
        if (IdKind.of(engineId).isEmpty()) {
            return null;
        }
        String tagged;
        try {
            tagged = tag.apply(engineId);
        } catch (IllegalArgumentException refused) {
            return null;
        }
        if (tagged.equals(engineId)) {
            return null;
        }
        String rest = engineId.substring(prefixLength());
        int prefixEnd = prefixEnd(raw, from, to);
        if (prefixEnd < 0 || !tagged.endsWith(rest)) {
            return JsonStrings.content(tagged); // a tag function of another shape: its text, written plainly
        }
        return join(JsonStrings.content(tagged.substring(0, tagged.length() - rest.length())), raw, prefixEnd, to);
    }

    /**
     * How the tag of any id of the kind whose prefix is {@code prefix} begins, as JSON string content: its site,
     * cluster and mac put after the prefix; null when the tag function tags no id that way.
     */
    static byte @Nullable [] head(String prefix, UnaryOperator<String> tag) {
        String probe = prefix + ID_CHARACTER;
        try {
            String tagged = tag.apply(probe);
            // A tag's last part is the engine's id without its prefix: anything else is no tag of this shape.
            if (tagged.equals(probe) || !tagged.startsWith(prefix) || !tagged.endsWith("." + ID_CHARACTER)) {
                return null;
            }
            return JsonStrings.content(tagged.substring(0, tagged.length() - 1));
        } catch (IllegalArgumentException refused) {
            return null;
        }
    }

    /**
     * The index in {@code raw} just after the characters that spell the id prefix at {@code raw[from]} (each written
     * plainly or as an escape), or -1 when the content up to {@code to} does not begin with a whole prefix.
     */
    static int prefixEnd(byte[] raw, int from, int to) {
        int at = from;
        for (int read = 0; read < prefixLength(); read++) {
            if (at >= to) {
                return -1;
            }
            if (raw[at] != '\\') {
                at++;
            } else if (at + 1 < to && raw[at + 1] == 'u') {
                at += 6;
            } else {
                at += 2;
            }
        }
        return at <= to ? at : -1;
    }

    /** The length of either prefix. */
    static int prefixLength() {
        return IdKind.RESP.prefix().length();
    }

    private static byte[] join(byte[] head, byte[] raw, int from, int to) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(head.length + to - from);
        out.write(head, 0, head.length);
        out.write(raw, from, to - from);
        return out.toByteArray();
    }
}
