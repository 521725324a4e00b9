package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The content of one id member's string value as {@link JsonIdStream} holds it, until its closing quote decides its
 * tag, or until the relay has held it an idle timeout and hands it on before that ({@link #handOn}; docs/design.md
 * §H20).
 *
 * <p>A tag is the engine's id with the site, cluster and mac put in just after its prefix (docs/stored-ids.md), so an
 * id handed on early still reaches the client whole and tagged: what came of it goes out as the start of its tag, or,
 * when only part of the prefix came, as it is, the tag's middle following the prefix's last byte when that comes
 * ({@link #continuesPrefix}, {@link #tagMiddle}); the rest of the value passes as read. An id whose later bytes break
 * an id's rules (a '.', a length past the longest tag) then ends up in a tag that does not parse, answered 404 like
 * the untagged id it would otherwise have stayed.
 *
 * <p>Not thread-safe; one per {@link JsonIdStream}.
 */
final class HeldId {
    /** A character every engine id may hold: added to an id's first bytes to learn how its tag begins. */
    private static final char ID_CHARACTER = '0';

    private final UnaryOperator<String> tag;
    private byte[] held = new byte[64];
    private int length;
    /** The id prefix a value handed on before its prefix was whole began with, while its next bytes may complete it. */
    private @Nullable String pendingPrefix;

    private int prefixMatched;

    HeldId(UnaryOperator<String> tag) {
        this.tag = tag;
    }

    /** The bytes held now. */
    int length() {
        return length;
    }

    /** A new string begins: nothing of an earlier one is held or awaited. */
    void clear() {
        length = 0;
        pendingPrefix = null;
    }

    /** Holds one more byte; at most {@code max} are ever held. */
    void add(byte b, int max) {
        if (length == held.length) {
            held = Arrays.copyOf(held, Math.min(max, held.length * 4));
        }
        held[length++] = b;
    }

    /** Hands on what is held: tagged when it is a {@code whole}, unescaped id value, else as it was. */
    void release(boolean whole, boolean escaped, EventSink sink) {
        byte[] out = held;
        int count = length;
        if (whole && !escaped && IdKind.hasPrefix(held, 0, length)) {
            String engineId = new String(held, 0, length, StandardCharsets.UTF_8);
            try {
                String tagged = tag.apply(engineId);
                if (!tagged.equals(engineId)) {
                    out = JsonStrings.content(tagged);
                    count = out.length;
                }
            } catch (IllegalArgumentException refused) {
                // Left as it is.
            }
        }
        length = 0;
        emit(out, count, sink);
    }

    /**
     * Hands on what is held of a value whose closing quote has not come: as the start of its tag when it holds an id
     * prefix, as it is otherwise (an escape, a byte no id holds); when it holds only part of a prefix, the rest of the
     * prefix is awaited ({@link #continuesPrefix}).
     */
    void handOn(boolean escaped, EventSink sink) {
        byte[] out = held;
        int count = length;
        String prefix = escaped || length == 0 ? null : prefixOf(held[0]);
        if (prefix != null && length < prefix.length()) {
            if (Arrays.equals(held, 0, length, prefix.getBytes(StandardCharsets.US_ASCII), 0, length)) {
                pendingPrefix = prefix;
                prefixMatched = length;
            }
        } else if (prefix != null) {
            byte[] start = tagStart(new String(held, 0, length, StandardCharsets.UTF_8));
            if (start != null) {
                out = start;
                count = start.length;
            }
        }
        length = 0;
        emit(out, count, sink);
    }

    /** Whether the rest of an id prefix is awaited after a hand-on. */
    boolean awaitsPrefix() {
        return pendingPrefix != null;
    }

    /** Whether {@code b} is the prefix's next byte; else the wait ends, and the byte is read as usual. */
    boolean continuesPrefix(byte b) {
        String prefix = pendingPrefix;
        if (prefix != null && b == prefix.charAt(prefixMatched)) {
            prefixMatched++;
            return true;
        }
        pendingPrefix = null;
        return false;
    }

    /** Once the prefix's last byte was read: the tag's middle, to go after it (null: none, or not yet). */
    byte @Nullable [] tagMiddle() {
        String prefix = pendingPrefix;
        if (prefix == null || prefixMatched < prefix.length()) {
            return null;
        }
        pendingPrefix = null;
        byte[] start = tagStart(prefix);
        return start == null ? null : Arrays.copyOfRange(start, prefix.length(), start.length);
    }

    /** The id prefix a value starting with {@code first} can have, or null. */
    private static @Nullable String prefixOf(byte first) {
        for (IdKind kind : IdKind.values()) {
            if (kind.prefix().charAt(0) == first) {
                return kind.prefix();
            }
        }
        return null;
    }

    /**
     * How the tag of an id starting with {@code soFar} (its prefix at least) starts, as JSON string content: the tag of
     * {@code soFar} with one id character added, without that character; null when no tag carries {@code soFar}.
     */
    private byte @Nullable [] tagStart(String soFar) {
        String probe = soFar + ID_CHARACTER;
        try {
            String tagged = tag.apply(probe);
            // A tag's last part is the engine's id without its prefix: anything else is no tag of this id.
            if (tagged.equals(probe) || !tagged.endsWith("." + probe.substring(probe.indexOf('_') + 1))) {
                return null;
            }
            return JsonStrings.content(tagged.substring(0, tagged.length() - 1));
        } catch (IllegalArgumentException refused) {
            return null;
        }
    }

    private static void emit(byte[] bytes, int count, EventSink sink) {
        if (count > 0) {
            sink.event(bytes, 0, count);
        }
    }
}
