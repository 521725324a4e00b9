package grid.gateway.app.access;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The text of one access line as {@link AccessJson} writes it, and its UTF-8 bytes as the sink writes them: a
 * {@link StringBuilder}, a {@code char} and a {@code byte} array and an encoder, all kept for the next line, so a line
 * written to the sink allocates nothing. The bytes are what {@code String.getBytes(UTF_8)} gives for the same text
 * (an unpaired surrogate becomes {@code ?}), as a character sink encoding the text would write them.
 *
 * <p>One buffer is kept for reuse ({@link #take()}, {@link #release}): requests on virtual threads cannot share a
 * thread-local one, and a single slot taken by an atomic swap costs no allocation when lines do not overlap. A line
 * formatted while the slot is empty gets a fresh buffer; a buffer grown past {@link #KEPT_CAPACITY} (a very long path
 * or client address) is dropped rather than kept.
 *
 * <p>Not thread-safe: one line at a time, on one thread, between take and release.
 */
final class LineBuffer {
    /** Room for a line with every field set and a usual path. */
    static final int INITIAL_CAPACITY = 640;
    /** The largest buffer kept for the next line. */
    static final int KEPT_CAPACITY = 4_096;

    private static final AtomicReference<@Nullable LineBuffer> SPARE = new AtomicReference<>();

    /** UTF-8 needs at most three bytes for one UTF-16 unit (four for a surrogate pair, one for a lone surrogate). */
    private static final int MAX_BYTES_PER_CHAR = 3;

    private final StringBuilder text = new StringBuilder(INITIAL_CAPACITY);
    private final CharsetEncoder encoder = StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    private char[] chars = new char[INITIAL_CAPACITY];
    private CharBuffer charView = CharBuffer.wrap(chars);
    private byte[] bytes = new byte[INITIAL_CAPACITY * MAX_BYTES_PER_CHAR];
    private ByteBuffer byteView = ByteBuffer.wrap(bytes);

    private LineBuffer() {}

    /** An empty buffer: the spare one when free, else a new one. */
    static LineBuffer take() {
        LineBuffer spare = SPARE.getAndSet(null);
        return spare == null ? new LineBuffer() : spare;
    }

    /** The text to write the line into. */
    StringBuilder text() {
        return text;
    }

    /**
     * Ends the line with its newline and encodes it: the line is the first {@code n} bytes of {@link #bytes()}, where
     * {@code n} is what this returns. Valid until the buffer is released.
     */
    int encode() {
        text.append('\n');
        int length = text.length();
        if (chars.length < length) {
            chars = new char[length];
            charView = CharBuffer.wrap(chars);
        }
        if (bytes.length < length * MAX_BYTES_PER_CHAR) {
            bytes = new byte[length * MAX_BYTES_PER_CHAR];
            byteView = ByteBuffer.wrap(bytes);
        }
        text.getChars(0, length, chars, 0);
        charView.clear().limit(length);
        byteView.clear();
        // The byte array holds the worst case, so the encoder cannot overflow; malformed input is replaced.
        encoder.reset().encode(charView, byteView, true);
        encoder.flush(byteView);
        return byteView.position();
    }

    /** The bytes {@link #encode()} wrote. */
    byte[] bytes() {
        return bytes;
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
}
