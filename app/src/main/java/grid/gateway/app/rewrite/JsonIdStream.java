package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.text.JsonTokenizer;
import java.util.function.UnaryOperator;

/**
 * Tags the stored ids of one JSON text as it streams by (docs/design.md §5, §H20): the same members as
 * {@link ResponseIdTagger} (a string value starting with {@code resp_} or {@code conv_} as a client reads it, escapes
 * decoded, of a member named {@code id}, {@code previous_response_id} or {@code conversation} in any letter case, at
 * any depth), without ever holding the text: every byte is handed on as soon as it is read, but the content of such a
 * member's value, held until its closing quote decides (at most {@link #MAX_VALUE} bytes; a longer value passes as it
 * is: it reads as more than a tag's 512 characters, so as no tag), or until the caller, which times the hold, hands it
 * on ({@link #handOnHeld}).
 *
 * <pre>
 *   bytes ──accept──> structure (depth, object or array, expecting a name, colon, value, comma)
 *                     a member name: classified at its closing quote (escapes decoded, as an engine's parser would)
 *                     the string value of an id member: held, then tagged or handed on as it was
 *                     anything else: handed on as read, run by run
 * </pre>
 *
 * <p>Values a lenient parser reads ({@code NaN}, {@code -Infinity}, as Python's does) are read past like numbers. A text
 * that stops being JSON otherwise (a stray byte, a control byte in a string, deeper than
 * {@link JsonTokenizer#MAX_DEPTH}) is read from there as no two readers agree on its members: every id prefix gets the
 * tag's middle after it ({@link LooseIds}). A text the strict tagger refuses comes out tagged here all the same; one it
 * accepts comes out the same from both, whatever the chunking. Memory: a name of at most 120 bytes, a value of at most
 * {@link #MAX_VALUE}, a bit per level. Nothing here throws on any bytes.
 *
 * <p>Not thread-safe; one per text.
 */
public final class JsonIdStream {
    /** The longest id value held to be tagged: a tag's 512 characters, each written as a six-byte escape. */
    public static final int MAX_VALUE = 6 * 512;

    private enum Expect {
        VALUE,
        VALUE_OR_END,
        NAME,
        NAME_OR_END,
        COLON,
        COMMA_OR_END,
        DONE
    }

    private enum Token {
        NONE,
        NAME,
        VALUE,
        LITERAL
    }

    private final long[] objects = new long[(JsonTokenizer.MAX_DEPTH + 63) / 64];
    private int depth;
    private Expect expect = Expect.VALUE;
    private Token token = Token.NONE;
    private boolean broken;
    /** In a string: 0 outside an escape, 1 after a backslash, 2..5 reading the hex digits of a {@code \\u}. */
    private int escape;

    private boolean escaped;
    /** The member whose value comes next is an id member. */
    private boolean idMember;
    /** The current string is an id member's value, held in {@link #id}. */
    private boolean holding;

    private final byte[] name = new byte[IdNames.MAX_WRITTEN];
    private int nameLength;
    private final HeldId id;
    private final LooseIds loose;

    /**
     * A stream for one text.
     *
     * @param tag maps an engine id ({@code resp_abc}) to its tag; it may refuse an id by throwing
     *     {@link IllegalArgumentException}, which leaves the id as it is
     */
    public JsonIdStream(UnaryOperator<String> tag) {
        this.id = new HeldId(requireNonNull(tag, "tag"));
        this.loose = new LooseIds(tag);
    }

    /** The bytes held now: the content of an id value read so far. */
    public int held() {
        return id.length();
    }

    /** Takes the next {@code length} bytes of the text and hands on everything they let go, in order. */
    public void accept(byte[] bytes, int offset, int length, EventSink sink) {
        int run = offset;
        int end = offset + length;
        int i = offset;
        int at = offset;
        while (i < end && !broken) {
            at = i;
            byte b = bytes[i];
            if (holding) {
                // A byte kept in the held value moves the run past it; at the value's end the byte is handed on.
                run = hold(b, sink) ? i : i + 1;
                i++;
            } else if (id.awaitsPrefix()) {
                // The value's bytes after a hand-on, read as usual, and by the held id for the rest of its prefix.
                boolean prefixWhole = id.continuesPrefix(b);
                string(b);
                loose.seed(bytes, i, broken ? i : i + 1); // a byte that breaks the text is read from the flaw on
                i++;
                byte[] middle = prefixWhole ? id.tagMiddle() : null;
                if (middle != null) {
                    emit(bytes, run, i - run, sink);
                    emit(middle, 0, middle.length, sink);
                    run = i;
                }
            } else if (token == Token.VALUE && escape == 0 && plain(b)) {
                i = plainRun(bytes, i, end); // the bulk of a long string value, handed on in the run
            } else if (token == Token.LITERAL) {
                if (literal(b)) {
                    i++;
                } else {
                    token = Token.NONE;
                    valueDone(); // the byte after a literal is structure: read it again
                }
            } else if (token != Token.NONE) {
                string(b);
                i++;
            } else {
                if (structure(b) && holding) {
                    // The opening quote of an id value: it goes out, the content is held.
                    emit(bytes, run, i + 1 - run, sink);
                    run = i + 1;
                }
                i++;
            }
        }
        // From a flaw on (all of it when an earlier piece broke) no two readers agree on what is a member.
        int from = broken ? Math.max(run, at) : end;
        emit(bytes, run, from - run, sink);
        loose.accept(bytes, from, end, sink);
    }

    /**
     * Hands on the id value held so far without waiting for its closing quote, as the start of its tag where it can
     * be ({@link HeldId#handOn}): a relay holds nothing back from its client for much longer than an idle timeout
     * (docs/design.md §H20), and an engine may trickle an id a byte at a time. The rest of the value passes as read.
     */
    public void handOnHeld(EventSink sink) {
        if (holding && id.length() > 0) {
            id.seed(loose); // the value's start, for a flaw to come before its prefix is whole
            id.handOn(escaped, sink);
            holding = false;
        }
    }

    /** The text ended: hands on a value still held as {@link #handOnHeld} does (a partial JSON reader reads it). */
    public void finish(EventSink sink) {
        handOnCut(sink);
    }

    /**
     * The line that held this text's bytes ended (a {@code data} line of an event): a value still held cannot go on
     * past a raw line end in JSON, so it is handed on and the text counts as broken.
     */
    public void lineEnd(EventSink sink) {
        if (holding || (token != Token.NONE && token != Token.LITERAL)) {
            id.seed(loose);
            handOnCut(sink);
            broken = true;
        }
    }

    /** An LF the text holds that is not handed on (between two {@code data} lines of one event). */
    public void separator() {
        if (token == Token.LITERAL && !broken) {
            token = Token.NONE;
            valueDone();
        } else if (token != Token.NONE) {
            broken = true;
        }
        if (broken) {
            loose.lineFeed();
        }
    }

    /** One byte outside any token: whitespace or structure; returns whether it began holding. */
    private boolean structure(byte b) {
        switch (b) {
            case ' ', '\t', '\n', '\r' -> {
                return false;
            }
            case '{', '[' -> open(b == '{');
            case '}', ']' -> close(b == '}');
            case ':' -> expect(Expect.COLON, Expect.VALUE);
            case ',' -> comma();
            case '"' -> quote();
            default -> {
                if (expect == Expect.VALUE || expect == Expect.VALUE_OR_END) {
                    // NaN and Infinity too: no JSON, but Python's parser reads them, and the ids after them.
                    if (b == '-' || (b >= '0' && b <= '9') || "tfnNI".indexOf(b) >= 0) {
                        token = Token.LITERAL;
                        idMember = false;
                        return false;
                    }
                }
                broken = true;
            }
        }
        return holding;
    }

    private void open(boolean object) {
        if ((expect != Expect.VALUE && expect != Expect.VALUE_OR_END) || depth == JsonTokenizer.MAX_DEPTH) {
            broken = true;
            return;
        }
        if (object) {
            objects[depth >> 6] |= 1L << depth;
        } else {
            objects[depth >> 6] &= ~(1L << depth);
        }
        depth++;
        idMember = false;
        expect = object ? Expect.NAME_OR_END : Expect.VALUE_OR_END;
    }

    private void close(boolean object) {
        boolean ok = depth > 0
                && isObject(depth - 1) == object
                && (expect == Expect.COMMA_OR_END || expect == (object ? Expect.NAME_OR_END : Expect.VALUE_OR_END));
        if (!ok) {
            broken = true;
            return;
        }
        depth--;
        valueDone();
    }

    private void comma() {
        if (expect != Expect.COMMA_OR_END) {
            broken = true;
            return;
        }
        expect = isObject(depth - 1) ? Expect.NAME : Expect.VALUE;
    }

    private void quote() {
        escaped = false;
        escape = 0;
        if (expect == Expect.NAME || expect == Expect.NAME_OR_END) {
            token = Token.NAME;
            nameLength = 0;
        } else if (expect == Expect.VALUE || expect == Expect.VALUE_OR_END) {
            token = Token.VALUE;
            holding = idMember;
            id.clear();
        } else {
            broken = true;
        }
    }

    private void expect(Expect now, Expect next) {
        if (expect != now) {
            broken = true;
            return;
        }
        expect = next;
    }

    /** One byte inside a name or an unheld value string. */
    private void string(byte b) {
        if (!stringByte(b)) {
            return;
        }
        if (token == Token.NAME) {
            token = Token.NONE;
            idMember = isIdName();
            expect = Expect.COLON;
        } else {
            token = Token.NONE;
            valueDone();
        }
    }

    /** Reads one string byte; true at the closing quote. A name's bytes are kept to classify it. */
    private boolean stringByte(byte b) {
        if (escape == 1) {
            escape = b == 'u' ? 2 : 0;
            if (b != 'u' && "\"\\/bfnrt".indexOf(b) < 0) {
                broken = true;
            }
        } else if (escape >= 2) {
            escape = hex(b) ? (escape == 5 ? 0 : escape + 1) : fail();
        } else if (b == '\\') {
            escape = 1;
            escaped = true;
        } else if (b == '"') {
            return true;
        } else if ((b & 0xFF) < 0x20) {
            broken = true;
        }
        if (token == Token.NAME && nameLength < IdNames.MAX_WRITTEN) {
            name[nameLength++] = b;
        } else if (token == Token.NAME) {
            nameLength = IdNames.MAX_WRITTEN + 1; // too long to be an id name
        }
        return false;
    }

    /** One byte of a held value; true when holding ended (at the closing quote, or the text broke). */
    private boolean hold(byte b, EventSink sink) {
        if (stringByte(b)) {
            holding = false;
            token = Token.NONE;
            release(sink);
            valueDone();
            return true;
        }
        if (broken) {
            id.seed(loose); // what a lenient reader makes of the value's start goes on from the flaw
            handOnCut(sink);
            return true;
        }
        if (id.length() == MAX_VALUE) {
            // No tag carries a value this long: what is held goes on as it is, and this byte and the rest with it.
            release(sink);
            holding = false;
            return true;
        }
        id.add(b, MAX_VALUE);
        return false;
    }

    /** Hands on what is held: tagged when it is a whole id value, else as it was. */
    private void release(EventSink sink) {
        id.release(!holding && token == Token.NONE && !broken, escaped, sink);
    }

    /** A value whose text broke or ended: as the start of its tag when a whole prefix came, else as it is. */
    private void handOnCut(EventSink sink) {
        if (holding && id.length() > 0) {
            id.handOn(escaped, sink);
        }
        holding = false;
    }

    private void valueDone() {
        loose.reset(); // what it read of this value counts for no flaw after it
        idMember = false;
        expect = depth == 0 ? Expect.DONE : Expect.COMMA_OR_END;
    }

    private boolean isIdName() {
        return nameLength <= IdNames.MAX_WRITTEN
                && IdNames.classify(name, 0, nameLength, escaped, IdNames.Match.ANY_CASE) != StoredIdScan.Name.OTHER;
    }

    private boolean isObject(int level) {
        return (objects[level >> 6] & (1L << level)) != 0;
    }

    private int fail() {
        broken = true;
        return 0;
    }

    /** A string byte that needs no look: not a quote, a backslash or a control byte. */
    private static boolean plain(byte b) {
        return b != '"' && b != '\\' && (b < 0 || b >= 0x20);
    }

    /** The index of the first byte from {@code from} that is not {@link #plain}, or {@code end}. */
    private static int plainRun(byte[] bytes, int from, int end) {
        int i = from;
        while (i < end && plain(bytes[i])) {
            i++;
        }
        return i;
    }

    private static boolean literal(byte b) {
        return (b >= '0' && b <= '9')
                || (b >= 'a' && b <= 'z')
                || (b >= 'A' && b <= 'Z')
                || b == '+'
                || b == '-'
                || b == '.';
    }

    private static boolean hex(byte b) {
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
    }

    private static void emit(byte[] bytes, int offset, int length, EventSink sink) {
        if (length > 0) {
            sink.event(bytes, offset, length);
        }
    }
}
