package grid.gateway.app.access;

import java.io.Writer;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The text of one access line as the JSON generator writes it: a {@link Writer} over a {@link StringBuilder}, without
 * {@code StringWriter}'s synchronised {@code StringBuffer} and without its second copy for the newline.
 *
 * <p>One buffer is kept for reuse ({@link #take()}, {@link #release}): requests on virtual threads cannot share a
 * thread-local one, and a single slot taken by an atomic swap costs no allocation when lines do not overlap. A line
 * formatted while the slot is empty gets a fresh buffer; a buffer grown past {@link #KEPT_CAPACITY} (a very long path
 * or client address) is dropped rather than kept.
 *
 * <p>Not thread-safe: one line at a time, on one thread, between take and release.
 */
final class LineBuffer extends Writer {
    /** Room for a line with every field set and a usual path. */
    static final int INITIAL_CAPACITY = 640;
    /** The largest buffer kept for the next line. */
    static final int KEPT_CAPACITY = 4_096;

    private static final AtomicReference<@Nullable LineBuffer> SPARE = new AtomicReference<>();

    private final StringBuilder text = new StringBuilder(INITIAL_CAPACITY);

    private LineBuffer() {}

    /** An empty buffer: the spare one when free, else a new one. */
    static LineBuffer take() {
        LineBuffer spare = SPARE.getAndSet(null);
        return spare == null ? new LineBuffer() : spare;
    }

    /** The line written so far with its newline; empties {@code buffer} and gives it back for the next line. */
    static String release(LineBuffer buffer) {
        String line = buffer.text.append('\n').toString();
        discard(buffer);
        return line;
    }

    /** Empties {@code buffer} without a line (the line could not be built) and gives it back. */
    static void discard(LineBuffer buffer) {
        buffer.text.setLength(0);
        if (buffer.text.capacity() <= KEPT_CAPACITY) {
            SPARE.set(buffer);
        }
    }

    @Override
    public void write(char[] chars, int offset, int length) {
        text.append(chars, offset, length);
    }

    @Override
    public void write(String chars, int offset, int length) {
        text.append(chars, offset, offset + length);
    }

    @Override
    public void write(int c) {
        text.append((char) c);
    }

    @Override
    public void flush() {
        // Nothing below: the text stays in memory.
    }

    @Override
    public void close() {
        // The generator closes its writer; the buffer lives on for the next line.
    }
}
