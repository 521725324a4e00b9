package grid.gateway.app.forward;

import java.io.IOException;

/**
 * Reads one answer body into its buffer, one read at a time, each watched by the answer's idle alarm
 * ({@link ResponseRelay}).
 *
 * <p>Not thread-safe; one per answer, on the relay's thread.
 */
final class UpstreamReader {
    private static final int COPY_BUFFER = 16 * 1024;
    /** The copy buffer of an event stream. */
    private static final int EVENT_BUFFER = 4 * 1024;

    final byte[] buffer;
    final UpstreamAnswer answer;
    /** The announced Content-Length, or -1 (chunked, or until the connection closes). */
    final long announced;

    UpstreamReader(UpstreamAnswer answer, boolean events) {
        this.answer = answer;
        this.announced = answer.length();
        // A short answer needs no 16 KiB buffer of its own: sized by what the answer announced. An event stream's
        // reads bring an event or a few (a token's event is a few hundred bytes), and a stream may stay open for
        // minutes holding its buffer: 4 KiB (docs/design.md §H16).
        int most = events ? EVENT_BUFFER : COPY_BUFFER;
        this.buffer = new byte[announced < 0 ? most : (int) Math.max(1, Math.min(most, announced))];
    }

    /** The next read's byte count in {@link #buffer}, or -1 at the body's end. */
    int read() throws IOException {
        return answer.read(buffer, buffer.length);
    }

    /** Whether a first read of {@code n} bytes brought the whole announced answer and filled the buffer. */
    boolean holdsWhole(int n) {
        return announced > 0 && n == announced && n == buffer.length;
    }
}
