package grid.gateway.app.rewrite;

/**
 * Finds where server-sent events end, byte by byte across any chunking: an event ends with a blank line, and a line
 * ends with CRLF, LF or a lone CR (the WHATWG event-stream grammar), so {@code \n\n}, {@code \r\n\r\n} and
 * {@code \r\r} all end one.
 *
 * <p>A blank line made of a CR ends the event at once, but the LF that may follow belongs to the same line ending.
 * When that CR is the last byte seen, the event is {@linkplain #isEndPending() complete but open}: the next byte
 * decides whether the LF joins it. That makes every boundary independent of where chunks split.
 *
 * <p>Not thread-safe; one per stream.
 */
final class SseFraming {
    private boolean lineStart = true;
    private boolean afterCr;
    private boolean endPending;

    /**
     * Reads {@code b[from, to)} as the continuation of the current event: the index just after the event's end if it
     * ends in the range (the framing then starts a new event), else -1 with every byte taken in. With an end pending,
     * the result is {@code from + 1} when the range starts with LF, else {@code from}.
     */
    int scan(byte[] b, int from, int to) {
        if (endPending) {
            if (from == to) {
                return -1;
            }
            reset();
            return b[from] == '\n' ? from + 1 : from;
        }
        for (int q = from; q < to; q++) {
            byte c = b[q];
            if (c == '\n') {
                if (afterCr) {
                    afterCr = false;
                } else if (lineStart) {
                    reset();
                    return q + 1;
                } else {
                    lineStart = true;
                }
            } else if (c == '\r') {
                if (lineStart) {
                    return blankCr(b, q, to);
                }
                lineStart = true;
                afterCr = true;
            } else {
                lineStart = false;
                afterCr = false;
            }
        }
        return -1;
    }

    /** Whether the event's blank line ended with the last byte seen, a CR, and only its possible LF is awaited. */
    boolean isEndPending() {
        return endPending;
    }

    /** Forgets the current event: the next byte starts a new one. */
    void reset() {
        lineStart = true;
        afterCr = false;
        endPending = false;
    }

    /** A CR at {@code q} made a blank line: the event ends after it, or after the LF that follows it. */
    private int blankCr(byte[] b, int q, int to) {
        if (q + 1 == to) {
            endPending = true;
            return -1;
        }
        reset();
        return b[q + 1] == '\n' ? q + 2 : q + 1;
    }
}
