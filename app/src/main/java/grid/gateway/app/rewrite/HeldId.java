package grid.gateway.app.rewrite;

import grid.gateway.routing.tag.IdKind;
import grid.gateway.routing.text.JsonEscape;
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
 * ({@link #continuesPrefix}, {@link #tagMiddle}); the rest of the value passes as read. Held bytes are read as a
 * client's parser reads them ({@link IdValue}): an id prefix written with escapes is one, and an escape or a character
 * not yet whole goes on as it came. An id whose later bytes break an id's rules (a '.', a length past the longest tag)
 * then ends up in a tag that does not parse, answered 404 like the untagged id it would otherwise have stayed.
 *
 * <p>Not thread-safe; one per {@link JsonIdStream}.
 */
final class HeldId {
    /** What {@link #decode} returns for a byte inside an escape. */
    private static final int INSIDE_ESCAPE = -2;

    private final UnaryOperator<String> tag;
    private byte[] held = new byte[64];
    private int length;
    /** Whether a value handed on before its prefix was whole may still complete one with its next bytes. */
    private boolean awaiting;
    /** The prefix awaited, once its first character came. */
    private @Nullable String pendingPrefix;

    private int prefixMatched;
    /** While a prefix is awaited: 0 outside an escape, 1 after its backslash, 2..5 after its {@code u} and digits. */
    private int escapeLength;
    /** The digits of a {@code \\u} escape read so far. */
    private int escapedUnit;

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
        awaiting = false;
    }

    /** Lets {@code loose} read the bytes held (they go on as they are): the start of what it reads. */
    void seed(LooseIds loose) {
        loose.seed(held, 0, length);
    }

    /** Holds one more byte; at most {@code max} are ever held. */
    void add(byte b, int max) {
        if (length == held.length) {
            held = Arrays.copyOf(held, Math.min(max, held.length * 4));
        }
        held[length++] = b;
    }

    /** Hands on what is held: tagged when it is a {@code whole} id value as a client reads it, else as it was. */
    void release(boolean whole, boolean escaped, EventSink sink) {
        byte[] tagged = whole ? IdValue.tagged(held, 0, length, escaped, tag) : null;
        if (tagged != null) {
            emit(tagged, tagged.length, sink);
        } else {
            emit(held, length, sink);
        }
        length = 0;
    }

    /**
     * Hands on what is held of a value whose closing quote has not come: as the start of its tag when it begins with a
     * whole id prefix as a client reads it, the bytes after the prefix following as they came; as it is otherwise;
     * when what came may still grow into a prefix, the rest of the prefix is awaited ({@link #continuesPrefix}).
     */
    void handOn(boolean escaped, EventSink sink) {
        int prefixEnd = IdValue.prefixEnd(held, 0, length);
        byte[] head = null;
        if (prefixEnd >= 0) {
            String prefix = escaped ? JsonEscape.text(held, 0, prefixEnd) : ascii(held, prefixEnd);
            head = IdKind.of(prefix).isPresent() ? IdValue.head(prefix, tag) : null;
        } else {
            awaiting = true;
            pendingPrefix = null;
            prefixMatched = 0;
            escapeLength = 0;
            for (int i = 0; i < length; i++) {
                continuesPrefix(held[i]); // fewer than a prefix's characters came whole: none completes it
            }
        }
        if (head == null) {
            emit(held, length, sink);
        } else {
            emit(head, head.length, sink);
            if (length > prefixEnd) {
                sink.event(held, prefixEnd, length - prefixEnd);
            }
        }
        length = 0;
    }

    /** Whether the rest of an id prefix is awaited after a hand-on. */
    boolean awaitsPrefix() {
        return awaiting;
    }

    /**
     * Reads {@code b}, the value's next byte, while the rest of its prefix is awaited, as a client reads it (an escape
     * counts once whole); true when it completes the prefix ({@link #tagMiddle} then says what goes after it). A
     * character that is not the prefix's next ends the wait. The caller reads the byte as usual too.
     */
    boolean continuesPrefix(byte b) {
        if (!awaiting) {
            return false;
        }
        int c = decode(b);
        if (c == INSIDE_ESCAPE) {
            return false;
        }
        String prefix = pendingPrefix != null ? pendingPrefix : prefixOf(c);
        if (prefix == null || c != prefix.charAt(prefixMatched)) {
            awaiting = false;
            return false;
        }
        pendingPrefix = prefix;
        prefixMatched++;
        return prefixMatched == prefix.length();
    }

    /** Once the prefix's last character was read: the tag's middle, to go after it (null: none, or not yet). */
    byte @Nullable [] tagMiddle() {
        String prefix = pendingPrefix;
        if (!awaiting || prefix == null || prefixMatched < prefix.length()) {
            return null;
        }
        awaiting = false;
        byte[] head = IdValue.head(prefix, tag);
        return head == null ? null : Arrays.copyOfRange(head, prefix.length(), head.length);
    }

    /** The character {@code b} ends, as a JSON string's reader decodes it; {@link #INSIDE_ESCAPE} while it is not. */
    private int decode(byte b) {
        if (escapeLength == 0 && b == '\\') {
            escapeLength = 1;
            return INSIDE_ESCAPE;
        }
        if (escapeLength == 0) {
            return b & 0xFF; // a byte of a UTF-8 sequence is no prefix character
        }
        if (escapeLength == 1 && b == 'u') {
            escapeLength = 2;
            escapedUnit = 0;
            return INSIDE_ESCAPE;
        }
        if (escapeLength == 1) {
            escapeLength = 0;
            return JsonEscape.shortEscape(b);
        }
        int digit = Character.digit((char) (b & 0xFF), 16);
        escapedUnit = escapedUnit << 4 | Math.max(digit, 0);
        if (escapeLength == 5 || digit < 0) {
            escapeLength = 0;
            return digit < 0 ? -1 : escapedUnit; // a broken escape: no character of a prefix
        }
        escapeLength++;
        return INSIDE_ESCAPE;
    }

    /** The id prefix a value starting with {@code first} can have, or null. */
    private static @Nullable String prefixOf(int first) {
        for (IdKind kind : IdKind.values()) {
            if (kind.prefix().charAt(0) == first) {
                return kind.prefix();
            }
        }
        return null;
    }

    private static String ascii(byte[] bytes, int length) {
        return new String(bytes, 0, length, StandardCharsets.US_ASCII);
    }

    private static void emit(byte[] bytes, int count, EventSink sink) {
        if (count > 0) {
            sink.event(bytes, 0, count);
        }
    }
}
