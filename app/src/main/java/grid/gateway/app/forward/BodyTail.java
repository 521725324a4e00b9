package grid.gateway.app.forward;

import java.util.Arrays;

/**
 * The end of an answer body, kept while it streams by: engines report usage (cached tokens) at the end of a body or
 * in a stream's final event, so this is all the usage parser needs.
 *
 * <ul>
 *   <li>{@link #BodyTail() A body's tail}: its last {@link #CAPACITY} bytes. The buffer grows with the body up to the
 *       capacity and then wraps, so a small answer costs a small buffer.
 *   <li>{@link #ofEvents() An event stream's tail}: its last two whole events and the event in progress, at most
 *       {@link #CAPACITY} bytes. A stream's usage is in its last events (a usage chunk, then {@code [DONE]}; a
 *       Responses stream's {@code response.completed}), and a stream open for minutes would otherwise fill the whole
 *       capacity for each stream it holds.
 * </ul>
 *
 * <p>What it keeps is counted, as its buffer grows, in the answer's {@link AnswerMemory} (a stalled client's relay holds
 * a full tail until its request ends).
 *
 * <p>Not thread-safe; one per answer.
 */
public final class BodyTail {
    /** Bytes kept at most. */
    public static final int CAPACITY = 64 * 1024;

    private static final int FIRST_EVENTS_BUFFER = 512;

    private final boolean events;
    /** False for a tail nobody reads: it keeps nothing. */
    private final boolean keeps;

    private final AnswerMemory memory;
    private byte[] ring = new byte[0];
    private long total;
    /**
     * Event mode: where in {@link #ring} (kept linear) the older and the newer of the last two whole events begin, and
     * where the event in progress does.
     */
    private int olderStart;

    private int newerStart;
    private int progressStart;
    /** Event mode: line ends in a row so far (CRs ignored); two make a blank line, an event's end. */
    private int lineEnds;

    /** The tail of a body: its last {@link #CAPACITY} bytes, counted nowhere (an answer without a body). */
    public BodyTail() {
        this(false, true, AnswerMemory.NONE);
    }

    /** The tail of a body: its last {@link #CAPACITY} bytes, its buffer counted in {@code memory}. */
    public BodyTail(AnswerMemory memory) {
        this(false, true, memory);
    }

    private BodyTail(boolean events, boolean keeps, AnswerMemory memory) {
        this.events = events;
        this.keeps = keeps;
        this.memory = memory;
    }

    /** The tail of an answer whose usage nobody reads (not a 2xx, or a request that computes no prompt): empty. */
    public static BodyTail unread() {
        return new BodyTail(false, false, AnswerMemory.NONE);
    }

    /** The tail of a server-sent event stream: its last two whole events and the one in progress. */
    public static BodyTail ofEvents() {
        return ofEvents(AnswerMemory.NONE);
    }

    /** As {@link #ofEvents()}, its buffer counted in {@code memory}. */
    public static BodyTail ofEvents(AnswerMemory memory) {
        return new BodyTail(true, true, memory);
    }

    /** Adds bytes. */
    public void append(byte[] src, int offset, int length) {
        if (!keeps) {
            return;
        }
        if (events) {
            appendEvents(src, offset, length);
        } else {
            appendRing(src, offset, length);
        }
    }

    /**
     * Whether a body's tail lost the body's start (the body was longer than {@link #CAPACITY}), so its first kept byte
     * may be anywhere in a JSON text; never for an event stream's tail, which keeps whole events.
     */
    public boolean cut() {
        return !events && total > ring.length;
    }

    /** A copy of the kept bytes, oldest first. */
    public byte[] bytes() {
        if (events || total <= ring.length) {
            return Arrays.copyOf(ring, (int) Math.min(total, ring.length));
        }
        int start = (int) (total % ring.length);
        byte[] out = new byte[ring.length];
        System.arraycopy(ring, start, out, 0, ring.length - start);
        System.arraycopy(ring, 0, out, ring.length - start, start);
        return out;
    }

    private void appendRing(byte[] src, int offset, int length) {
        int off = offset;
        int len = length;
        if (len > CAPACITY) {
            off += len - CAPACITY;
            total += len - CAPACITY;
            len = CAPACITY;
        }
        if (ring.length < CAPACITY && total + len > ring.length) {
            grow((int) Math.min(CAPACITY, Math.max(total + len, ring.length * 2L)));
        }
        for (int i = 0; i < len; ) {
            int at = (int) (total % ring.length);
            int n = Math.min(len - i, ring.length - at);
            System.arraycopy(src, off + i, ring, at, n);
            i += n;
            total += n;
        }
    }

    /**
     * Event mode: {@link #ring} is kept linear, {@code total} bytes long: the bytes from the start of the older of the
     * last two whole events. Each blank line moves the starts on, and what precedes the older one is dropped. The bytes
     * are scanned one by one for blank lines but copied a run at a time: this runs for every event of every stream.
     */
    private void appendEvents(byte[] src, int offset, int length) {
        int end = offset + length;
        int copied = offset;
        for (int i = offset; i < end; i++) {
            byte b = src[i];
            if (b == '\n') {
                if (++lineEnds == 2) {
                    putAll(src, copied, i + 1 - copied);
                    copied = i + 1;
                    olderStart = newerStart;
                    newerStart = progressStart;
                    progressStart = (int) total;
                }
            } else if (b != '\r') {
                lineEnds = 0;
            }
        }
        putAll(src, copied, end - copied);
        dropBefore(olderStart);
    }

    /** Appends {@code length} bytes, growing the buffer or, full at its capacity, dropping its first half. */
    private void putAll(byte[] src, int offset, int length) {
        int at = offset;
        int left = length;
        while (left > 0) {
            if (total == ring.length) {
                if (ring.length == CAPACITY) {
                    // One event longer than the capacity: keep its last bytes, as a body's tail would.
                    dropBefore(CAPACITY / 2);
                } else {
                    grow(Math.max(FIRST_EVENTS_BUFFER, Math.min(CAPACITY, ring.length * 2)));
                }
            }
            int n = Math.min(left, ring.length - (int) total);
            System.arraycopy(src, at, ring, (int) total, n);
            total += n;
            at += n;
            left -= n;
        }
    }

    /** Grows the buffer to {@code length} bytes, counting the growth first. */
    private void grow(int length) {
        memory.hold(length - ring.length);
        ring = Arrays.copyOf(ring, length);
    }

    /** Drops the first {@code n} kept bytes. */
    private void dropBefore(int n) {
        if (n <= 0) {
            return;
        }
        System.arraycopy(ring, n, ring, 0, (int) total - n);
        total -= n;
        olderStart = Math.max(0, olderStart - n);
        newerStart = Math.max(0, newerStart - n);
        progressStart = Math.max(0, progressStart - n);
    }
}
