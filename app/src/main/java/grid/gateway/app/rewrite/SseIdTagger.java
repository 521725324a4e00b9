package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Tags the stored ids in a {@code text/event-stream} answer of {@code /v1/responses…} (docs/design.md §5, §9), event by event
 * as the bytes arrive: buffers until an event is complete, tags the JSON of its {@code data} lines with a
 * {@link ResponseIdTagger}, and hands the whole event to the sink in one call, so the caller can flush per event.
 *
 * <pre>
 *   upstream chunks ──accept──> [ buffer: the current event, at most maxEventBytes ]
 *                                   │ blank line (\n\n, \r\n\r\n, \r\r)      │ event outgrows the limit
 *                                   v                                       v
 *                    sink.event(tagged event)          SseEventStream: tagged as it streams, piece by piece
 * </pre>
 *
 * <p>Chunking never matters to the bytes: an event split at any byte comes out as it would unsplit, in one call, but
 * for one case: an event whose blank line's CR is the last byte read goes on at once (a client dispatches it there),
 * and the LF that may follow goes on by itself ({@link SseFraming}). Memory is bounded: an event longer than
 * {@code maxEventBytes} is not buffered whole but tagged as it streams ({@link SseEventStream}, {@link JsonIdStream})
 * and handed on in pieces (the buffered part, then each chunk's share up to the event's end), so its ids are tagged
 * too (docs/design.md §H20); the next event is buffered again. {@link #finish} hands on a trailing event that no
 * blank line ended, tagged too. Bytes that are not an event stream pass through all the same. Nothing here throws on
 * any bytes.
 *
 * <p>Not thread-safe; one per stream.
 */
public final class SseIdTagger {
    /**
     * A limit for {@code maxEventBytes}: 64 KiB, above the events of a streamed response but its first and last (which
     * carry the whole response object and are tagged as they stream when larger).
     */
    public static final int DEFAULT_MAX_EVENT_BYTES = 64 << 10;

    private final ResponseIdTagger tagger;
    private final int maxEventBytes;
    /** Told of the bytes of an event's tagged copy while the sink has it, and of them given back after. */
    private final LongConsumer copies;

    private final SseFraming framing = new SseFraming();
    private byte[] buffer = new byte[256];
    private int size;
    /** The event too large to buffer, tagged as it streams; null while events are buffered. */
    private @Nullable SseEventStream streaming;

    /**
     * Creates a tagger for one stream.
     *
     * @param tagger tags the JSON of each event's data
     * @param maxEventBytes the longest event buffered and tagged, blank line included; at least 1
     */
    public SseIdTagger(ResponseIdTagger tagger, int maxEventBytes) {
        this(tagger, maxEventBytes, bytes -> {});
    }

    /**
     * Creates a tagger for one stream whose tagged copies of events are counted: {@code copies} is told a copy's
     * length before the sink takes it and minus that length once the sink returned (a sink that writes to a slow
     * client may hold the copy for as long as the client takes nothing).
     */
    public SseIdTagger(ResponseIdTagger tagger, int maxEventBytes, LongConsumer copies) {
        this.tagger = requireNonNull(tagger, "tagger");
        if (maxEventBytes < 1) {
            throw new IllegalArgumentException("maxEventBytes: " + maxEventBytes + " (expected: >= 1)");
        }
        this.maxEventBytes = maxEventBytes;
        this.copies = requireNonNull(copies, "copies");
    }

    /** Takes the next {@code len} bytes of the stream and hands every event they complete to {@code sink}. */
    public void accept(byte[] chunk, int off, int len, EventSink sink) {
        requireNonNull(chunk, "chunk");
        requireNonNull(sink, "sink");
        Objects.checkFromIndexSize(off, len, chunk.length);
        int i = off;
        int end = off + len;
        while (i < end) {
            i = streaming != null ? passOn(chunk, i, end, sink) : gather(chunk, i, end, sink);
        }
    }

    /**
     * Ends the stream: hands on a trailing event that no blank line ended, tagged as any event is (a WHATWG reader
     * drops it, a lenient one reads it; an event too long to hold gets the same). The tagger then starts afresh.
     */
    public void finish(EventSink sink) {
        requireNonNull(sink, "sink");
        if (size > 0) {
            emit(buffer, 0, size, sink);
        }
        SseEventStream open = streaming;
        if (open != null) {
            open.finish(sink);
            streaming = null;
        }
        size = 0;
        framing.reset();
    }

    /**
     * Whether bytes of an event are held now: an event waiting for its blank line, or, in an event tagged as it
     * streams, a field name or an id value waiting for its end.
     */
    public boolean holds() {
        SseEventStream open = streaming;
        if (open != null) {
            return open.holds();
        }
        return size > 0;
    }

    /**
     * Hands on what is held now: the event held as if it had outgrown the limit, tagged as it streams from here
     * ({@link SseEventStream}), and in an event tagged as it streams what its stream holds (an id value as far as it
     * came, tagged), so an event that comes slowly is not held back for as long as it comes. Nothing when
     * {@link #holds()} is false.
     */
    public void streamHeld(EventSink sink) {
        requireNonNull(sink, "sink");
        if (!holds()) {
            return;
        }
        SseEventStream open = streaming;
        if (open == null) {
            open = new SseEventStream(tagger.tagFunction());
            open.accept(buffer, 0, size, sink);
            streaming = open;
            size = 0;
        }
        // What the stream holds of the event's bytes was held as long as the event: it goes now too.
        open.handOnHeld(sink);
    }

    /** The bytes held for the current event: never more than {@code maxEventBytes + 1}. */
    int buffered() {
        return size;
    }

    /** Buffers the current event's bytes from {@code chunk[i, end)}; returns how far it read. */
    private int gather(byte[] chunk, int i, int end, EventSink sink) {
        int room = maxEventBytes - size;
        if (room == 0) {
            SseEventStream stream = new SseEventStream(tagger.tagFunction());
            stream.accept(buffer, 0, size, sink);
            streaming = stream;
            size = 0;
            return i;
        }
        int stop = end - i > room ? i + room : end;
        // The LF of a blank line whose CR fits joins the event, even past the limit.
        int eventEnd = framing.scan(chunk, i, stop, end);
        if (eventEnd < 0) {
            append(chunk, i, stop);
            return stop;
        }
        if (size == 0) {
            emit(chunk, i, eventEnd, sink);
        } else {
            append(chunk, i, eventEnd);
            emit(buffer, 0, size, sink);
            size = 0;
        }
        return eventEnd;
    }

    /** Tags as it streams the bytes of an oversized event from {@code chunk[i, end)}; returns how far it read. */
    private int passOn(byte[] chunk, int i, int end, EventSink sink) {
        SseEventStream stream = requireNonNull(streaming, "streaming");
        int eventEnd = framing.scan(chunk, i, end, end);
        int stop = eventEnd < 0 ? end : eventEnd;
        stream.accept(chunk, i, stop, sink);
        if (eventEnd >= 0) {
            stream.finish(sink);
            streaming = null;
        }
        return stop;
    }

    private void emit(byte[] b, int from, int to, EventSink sink) {
        Edits edits = new Edits();
        byte[] tagged;
        if (SseEvent.collect(b, from, to, tagger, edits)) {
            tagged = edits.count() == 0 ? null : edits.apply(b, from, to);
        } else {
            // Data that is not one JSON text ([DONE], a flaw, NaN), or other lines that may name an id: tagged as an
            // event too long to hold is tagged as it streams, so whether its ids are tagged never depends on its
            // length.
            ByteArrayOutputStream out = new ByteArrayOutputStream(to - from + 64);
            SseEventStream stream = new SseEventStream(tagger.tagFunction());
            stream.accept(b, from, to, out::write);
            stream.finish(out::write);
            tagged = out.toByteArray();
            tagged = Arrays.equals(tagged, 0, tagged.length, b, from, to) ? null : tagged;
        }
        if (tagged == null) {
            sink.event(b, from, to - from);
        } else {
            copies.accept(tagged.length);
            try {
                sink.event(tagged, 0, tagged.length);
            } finally {
                copies.accept(-tagged.length);
            }
        }
    }

    private void append(byte[] chunk, int from, int to) {
        int length = to - from;
        if (size + length > buffer.length) {
            long grown = Math.max((long) buffer.length * 2, (long) size + length);
            buffer = Arrays.copyOf(buffer, (int) Math.min(grown, (long) maxEventBytes + 1));
        }
        System.arraycopy(chunk, from, buffer, size, length);
        size += length;
    }
}
