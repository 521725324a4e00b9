package grid.gateway.app.sharing;

import java.net.ProtocolException;
import java.util.Optional;

/**
 * Checks the replies on one Redis connection as their bytes arrive, before the client reads them. The client
 * allocates what a reply announces before it reads the rest (a bulk string's bytes, an array's elements), and its
 * parser recurses once a nested aggregate: so a length, a count or a nesting depth beyond anything the gateway reads
 * is refused with a {@link ProtocolException}, which fails the command as a reset does, and the sharing thread
 * reconnects with backoff. A reply within the bounds passes unchanged.
 *
 * <p>It follows the framing of RESP2 and RESP3: a type byte, then a line up to CRLF ({@code + - : _ , # (}), or a
 * length up to CRLF and that many bytes and a CRLF ({@code $ = !}), or a count up to CRLF and that many items
 * ({@code * ~ >}; pairs for {@code % |}; an attribute {@code |} is no item of the aggregate around it). {@code -1}
 * is the null length; any other negative length, a length that is not a number and an unknown type byte are refused
 * too, as the client would fail on them anyway. A bulk string's bytes are skipped by count, not looked at. A whole
 * reply is bounded too ({@link #MAX_REPLY}): each of its bulks and counts may be within its bound while together they
 * are not (65,536 bulks of 8 MiB).
 *
 * <p>A refusal for size is an {@link OversizedReply}, which carries the reply's second bulk string when short (in an
 * XREAD reply of one entry, the entry's id).
 *
 * <p>Allocates nothing after construction but a refusal's exception. Not thread-safe: the connection's reading
 * thread.
 */
final class ReplyBounds {
    /**
     * A bulk string's bytes at most. The longest value the gateway reads is a confirmation's keys: 65,536 keys
     * ({@link SharedEntry#MAX_KEYS}) in base64, 699,052 bytes, and a longer one is dropped as malformed anyway. 8 MiB
     * is twelve times that and an allocation the heap absorbs on each connection.
     */
    static final int MAX_BULK = 8 << 20;

    /**
     * Elements of one array, set or push (pairs of a map or attribute) at most. The longest the gateway reads is one
     * XREAD batch of {@link SharingReader#COUNT} (1,000) entries; an entry's fields are 12 elements. 65,536 pre-sizes
     * a list of at most 512 KiB of references in the client.
     */
    static final int MAX_ELEMENTS = 1 << 16;

    /**
     * Aggregates nested in one another at most. An XREAD reply nests 5 deep (the streams, a stream's name and entries,
     * the entries, an entry's id and fields, the fields); the client's parser recurses once a level, so a reply nested
     * without end would overflow the reading thread's stack (an Error the sharing threads do not survive).
     * With {@link #MAX_ELEMENTS}, the open levels pre-size at most 8 MiB of lists.
     */
    static final int MAX_DEPTH = 16;

    /**
     * A header line's bytes between its type byte and its LF (its CR included) at most: a status word, an error
     * sentence, a number or a length is far shorter; the client builds a string of the line.
     */
    static final int MAX_LINE = 64 << 10;

    /**
     * A whole reply's bytes at most, its headers and nested items included (the client holds a reply's values all at
     * once). An ordinary XREAD batch of {@link SharingReader#COUNT} entries of a few KiB each is a few MiB; the largest
     * legitimate one, 1,000 confirmations of 65,536 keys, is about 700 MB, and is read in smaller batches once refused
     * ({@link SharingReader}).
     */
    static final long MAX_REPLY = 64L << 20;

    private static final String TOO_LONG = "a reply of more than " + MAX_REPLY + " bytes";

    /** The longest second bulk string kept for a refusal: a stream id, two 64-bit numbers and a dash, is 41 bytes. */
    static final int MAX_KEPT = 48;

    /** The next byte is a type byte. */
    private static final int TYPE = 0;
    /** In a line ({@code + - : _ , # (}) up to CRLF. */
    private static final int LINE = 1;
    /** In a length or count up to CRLF. */
    private static final int LENGTH = 2;
    /** In a bulk string's bytes and their CRLF. */
    private static final int PAYLOAD = 3;
    /** A reply was refused: the connection is of no further use. */
    private static final int REFUSED = 4;

    private int state = TYPE;
    private byte type;
    /** Bytes of the current line or length so far. */
    private int lineBytes;
    /** The line's last byte was CR. */
    private boolean cr;

    private boolean negative;
    private int digits;
    private long number;
    /** A bulk string's bytes still to come, with its CRLF. */
    private long payload;
    /** Each open aggregate's items still to come, outermost first. */
    private final int[] left = new int[MAX_DEPTH];
    /** Whether each open aggregate is an attribute (no item of the aggregate around it). */
    private final boolean[] attribute = new boolean[MAX_DEPTH];

    private int depth;
    /** Bytes of the reply in progress so far. */
    private long replyBytes;
    /** Whole replies scanned so far, pushes and attributes not counted (no command asked for them). */
    private long ended;
    /** The type byte of the outermost item in progress. */
    private byte outermost;

    private ProtocolException refusal = new ProtocolException();

    /** Bulk strings begun in the reply in progress. */
    private int bulks;
    /** The reply's second bulk string, while it is short ({@link #MAX_KEPT}); {@code keptLength} of it so far. */
    private final byte[] kept = new byte[MAX_KEPT];

    private int keptLength;
    /** The second bulk string's length while it is being kept; -1 when none is. */
    private long keeping = -1;
    /** Whether the second bulk string was kept whole. */
    private boolean keptWhole;

    /**
     * Checks the next {@code length} bytes of the connection, {@code bytes[offset..]}.
     *
     * @throws ProtocolException when they announce more than the bounds allow, or are not RESP; every later call
     *     throws it again
     */
    void scan(byte[] bytes, int offset, int length) throws ProtocolException {
        int at = offset;
        int end = offset + length;
        while (at < end) {
            int from = at;
            switch (state) {
                case PAYLOAD -> {
                    int skip = (int) Math.min(payload, end - at);
                    keep(bytes, at, skip);
                    at += skip;
                    payload -= skip;
                    if (payload == 0) {
                        state = TYPE;
                        itemEnded();
                    }
                }
                case TYPE -> start(bytes[at++]);
                case LINE -> at = line(bytes, at, end);
                case LENGTH -> length(bytes[at++]);
                default -> throw refusal;
            }
            replyBytes += at - from;
            if (replyBytes > MAX_REPLY) {
                throw refuseSize(TOO_LONG, true);
            }
            if (betweenReplies()) {
                if (outermost != '>' && outermost != '|') {
                    ended++;
                }
                replyBytes = 0;
                bulks = 0;
                keeping = -1;
                keptWhole = false;
            }
        }
    }

    /**
     * Whole replies scanned so far, not counting a RESP3 push ({@code >}) or an attribute ({@code |}) at the outermost
     * level, which answer no command; scanning what the client writes, whole commands (an array of bulk strings,
     * framed as a reply is).
     */
    long ended() {
        return ended;
    }

    /** Whether {@code failure} is (or was caused by) a reply refused for its total size, {@link #MAX_REPLY}. */
    static boolean tooLong(Throwable failure) {
        return OversizedReply.in(failure).filter(OversizedReply::whole).isPresent();
    }

    /**
     * Checks that no reply was refused: a connection whose reply was refused is read no further.
     *
     * @throws ProtocolException when one was
     */
    void usable() throws ProtocolException {
        if (state == REFUSED) {
            throw refusal;
        }
    }

    /** Whether the bytes so far end a whole reply. */
    boolean betweenReplies() {
        return state == TYPE && depth == 0;
    }

    private void start(byte b) throws ProtocolException {
        switch (b) {
            case '+', '-', ':', '_', ',', '#', '(' -> state = LINE;
            case '$', '=', '!', '*', '~', '>', '%', '|' -> {
                state = LENGTH;
                negative = false;
                digits = 0;
                number = 0;
            }
            default -> throw refuse("a reply of unknown type 0x" + Integer.toHexString(b & 0xff));
        }
        type = b;
        if (depth == 0) {
            outermost = b;
        }
        lineBytes = 0;
        cr = false;
    }

    /** Skips a line's bytes up to CRLF; returns where it stopped. */
    private int line(byte[] bytes, int from, int end) throws ProtocolException {
        for (int at = from; at < end; at++) {
            byte b = bytes[at];
            if (b == '\n' && cr) {
                state = TYPE;
                itemEnded();
                return at + 1;
            }
            cr = b == '\r';
            if (++lineBytes > MAX_LINE) {
                throw refuse("a line longer than " + MAX_LINE + " bytes");
            }
        }
        return end;
    }

    private void length(byte b) throws ProtocolException {
        if (++lineBytes > MAX_LINE) {
            throw refuse("a line longer than " + MAX_LINE + " bytes");
        }
        if (cr) {
            if (b != '\n') {
                throw refuse("a length not ended by CRLF");
            }
            lengthEnded();
        } else if (b == '\r' && digits > 0) {
            cr = true;
        } else if (b == '-' && digits == 0 && !negative) {
            negative = true;
        } else if (b >= '0' && b <= '9') {
            digits++;
            number = number * 10 + (b - '0');
            if (negative) {
                if (number > 1) {
                    throw refuse("a negative length other than -1");
                }
            } else if (bulk()) {
                if (number > MAX_BULK) {
                    throw refuseSize("a bulk string of more than " + MAX_BULK + " bytes", false);
                }
            } else if (number > MAX_ELEMENTS) {
                throw refuseSize("an aggregate of more than " + MAX_ELEMENTS + " elements", false);
            }
        } else {
            throw refuse("a length that is not a number");
        }
    }

    private void lengthEnded() throws ProtocolException {
        state = TYPE;
        if (negative) {
            if (number != 1) {
                throw refuse("a negative length other than -1");
            }
            nothingFollows();
        } else if (bulk()) {
            payload = number + 2;
            state = PAYLOAD;
            if (++bulks == 2 && number <= MAX_KEPT) {
                keeping = number;
                keptLength = 0;
            }
        } else if (number == 0) {
            nothingFollows();
        } else if (depth == MAX_DEPTH) {
            throw refuseSize("aggregates nested more than " + MAX_DEPTH + " deep", false);
        } else {
            boolean pairs = type == '%' || type == '|';
            left[depth] = (int) (pairs ? 2 * number : number);
            attribute[depth] = type == '|';
            depth++;
        }
    }

    /** A null or empty string or aggregate: an item of its own, unless an attribute. */
    private void nothingFollows() {
        if (type != '|') {
            itemEnded();
        }
    }

    /** An item ended: it counts for the aggregate around it, and may end that one in turn. */
    private void itemEnded() {
        while (depth > 0) {
            if (--left[depth - 1] > 0) {
                return;
            }
            depth--;
            if (attribute[depth]) {
                return; // the item it describes is still to come
            }
        }
    }

    private boolean bulk() {
        return type == '$' || type == '=' || type == '!';
    }

    /** Keeps what of {@code bytes[at..at + length)} belongs to the second bulk string while it is being kept. */
    private void keep(byte[] bytes, int at, int length) {
        if (keeping < 0) {
            return;
        }
        int wanted = (int) Math.min(length, keeping - keptLength);
        System.arraycopy(bytes, at, kept, keptLength, wanted);
        keptLength += wanted;
        if (payload == length) { // this slice ends the bulk string (its CRLF included)
            keptWhole = keptLength == keeping;
            keeping = -1;
        }
    }

    private ProtocolException refuse(String why) {
        state = REFUSED;
        refusal = new ProtocolException("Redis reply refused: " + why);
        return refusal;
    }

    private ProtocolException refuseSize(String why, boolean whole) {
        state = REFUSED;
        refusal = new OversizedReply(
                "Redis reply refused: " + why,
                whole,
                keptWhole ? Optional.of(OversizedReply.text(kept, keptLength)) : Optional.empty());
        return refusal;
    }
}
