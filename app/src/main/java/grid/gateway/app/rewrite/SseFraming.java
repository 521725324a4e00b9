package grid.gateway.app.rewrite;

/**
 * Finds where server-sent events end, byte by byte across any chunking: an event ends with a blank line, and a line
 * ends with CRLF, LF or a lone CR (the WHATWG event-stream grammar), so {@code \n\n}, {@code \r\n\r\n} and
 * {@code \r\r} all end one.
 *
 * <p>A blank line made of a CR ends the event at that CR: a client dispatches the event there, without waiting for a
 * byte that may follow. The LF of that blank line's CRLF goes with the event when it is in hand already; when the
 * CR is the last byte in hand, the LF that may follow is framed as an empty line of its own (a client reads it as
 * the end of the CR's line; neither holds data, so a client reads the same events). An event is thus never held back
 * for a byte its client does not need.
 *
 * <p>Not thread-safe; one per stream.
 */
final class SseFraming {
    private boolean lineStart = true;
    private boolean afterCr;

    /**
     * Reads {@code b[from, to)} as the continuation of the current event: the index just after the event's end if it
     * ends in the range (the framing then starts a new event), else -1 with every byte taken in. An event whose blank
     * line is a CR at {@code to - 1} ends there, or just after the LF at {@code to} when {@code to < available} and
     * that byte is one ({@code available}: the end of the bytes in hand, at least {@code to}).
     */
    int scan(byte[] b, int from, int to, int available) {
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
                    reset();
                    return q + 1 < available && b[q + 1] == '\n' ? q + 2 : q + 1;
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

    /** Forgets the current event: the next byte starts a new one. */
    void reset() {
        lineStart = true;
        afterCr = false;
    }
}
