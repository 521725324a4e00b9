package grid.gateway.app.rewrite;

import java.util.function.UnaryOperator;

/**
 * Tags the stored ids in one server-sent event too large to hold whole (docs/design.md §H20), line by line as it
 * streams by: the value of each {@code data} line is fed to one {@link JsonIdStream} for the whole event, the LF a
 * client puts between two data lines fed as a separator it never sees, so the event's data is read as the one JSON text
 * a client parses; every other line (a comment, {@code event}, {@code id}, {@code retry}, a line no event-stream
 * reader reads) is tagged as text past a flaw ({@link LooseIds}): a client that parses the body as JSON whatever its
 * label (an event-stream label on a JSON answer) reads those lines, not the data, and each {@code resp_} or
 * {@code conv_} there gets the serving cluster's tag middle. Every line end is handed on as it is.
 *
 * <p>Memory: at most the five bytes of a field name being read, and what the JSON stream holds; both are handed on
 * when the caller, which times what is held, asks ({@link #handOnHeld}).
 *
 * <p>Not thread-safe; one per event.
 */
final class SseEventStream {
    private static final byte[] DATA = {'d', 'a', 't', 'a', ':'};

    private enum Line {
        /** At a line's first bytes, reading what field it is. */
        FIELD,
        /** Just after {@code data:}: a space here is not part of the value. */
        DATA_SPACE,
        /** In a data line's value. */
        DATA,
        /** In any other line. */
        OTHER
    }

    private final JsonIdStream json;
    private final LooseIds loose;
    private final byte[] field = new byte[DATA.length];
    private int fieldLength;
    /** How many of the field name's bytes read so far already went out ({@link #handOnHeld}). */
    private int fieldSent;

    private Line line = Line.FIELD;
    private boolean afterCr;
    private boolean dataSeen;

    SseEventStream(UnaryOperator<String> tag) {
        this.json = new JsonIdStream(tag);
        this.loose = new LooseIds(tag);
    }

    /** Takes the next bytes of the event, {@code b[from, to)}, handing on what they let go. */
    void accept(byte[] b, int from, int to, EventSink sink) {
        int i = from;
        while (i < to) {
            byte c = b[i];
            if (c == '\r' || c == '\n') {
                lineEnd(b, i, sink);
                i++;
                continue;
            }
            afterCr = false;
            i = switch (line) {
                case FIELD -> field(b, i, sink);
                case DATA_SPACE -> {
                    line = Line.DATA;
                    if (c == ' ') {
                        sink.event(b, i, 1);
                        yield i + 1;
                    }
                    yield i;
                }
                case DATA -> data(b, i, to, sink);
                case OTHER -> other(b, i, to, sink);
            };
        }
    }

    /** The event ended: hands on what is held. */
    void finish(EventSink sink) {
        flushField(sink);
        json.finish(sink);
    }

    /** Whether bytes read are held back now: a field name being read, or an id value. */
    boolean holds() {
        return fieldLength > fieldSent || json.held() > 0;
    }

    /**
     * Hands on what is held now without waiting for what decides it (the relay held it an idle timeout): the field
     * name's bytes so far, and the id value held, tagged as far as it came ({@link JsonIdStream#handOnHeld}).
     */
    void handOnHeld(EventSink sink) {
        if (fieldLength > fieldSent) {
            sink.event(field, fieldSent, fieldLength - fieldSent);
            fieldSent = fieldLength;
        }
        json.handOnHeld(sink);
    }

    /** Hands on the field name's bytes not yet sent, and starts the next name. */
    private void flushField(EventSink sink) {
        if (fieldLength > fieldSent) {
            sink.event(field, fieldSent, fieldLength - fieldSent);
        }
        fieldLength = 0;
        fieldSent = 0;
    }

    private void lineEnd(byte[] b, int at, EventSink sink) {
        boolean lfOfCrlf = afterCr && b[at] == '\n';
        afterCr = b[at] == '\r';
        if (!lfOfCrlf) {
            if (line == Line.DATA || line == Line.DATA_SPACE) {
                json.lineEnd(sink);
            } else if (line == Line.OTHER) {
                loose.seed(b, at, at + 1); // a JSON5 line continuation joins the lines; a bare line end does not
            } else if (line == Line.FIELD && fieldLength == DATA.length - 1) {
                startData(); // "data" alone: an empty value
            }
            flushField(sink);
            line = Line.FIELD;
        }
        sink.event(b, at, 1);
    }

    /** Reads a field name's byte: {@code data:} starts a data value, anything else a line passed as it is. */
    private int field(byte[] b, int at, EventSink sink) {
        if (b[at] != DATA[fieldLength]) {
            flushField(sink);
            line = Line.OTHER;
            return at;
        }
        field[fieldLength++] = b[at];
        if (fieldLength == DATA.length) {
            flushField(sink);
            startData();
            line = Line.DATA_SPACE;
        }
        return at + 1;
    }

    private void startData() {
        if (dataSeen) {
            json.separator();
        }
        dataSeen = true;
    }

    private int data(byte[] b, int at, int to, EventSink sink) {
        int end = lineEnd(b, at, to);
        json.accept(b, at, end - at, sink);
        return end;
    }

    private int other(byte[] b, int at, int to, EventSink sink) {
        int end = lineEnd(b, at, to);
        loose.accept(b, at, end, sink);
        return end;
    }

    private static int lineEnd(byte[] b, int at, int to) {
        int end = at;
        while (end < to && b[end] != '\r' && b[end] != '\n') {
            end++;
        }
        return end;
    }
}
