package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A connection's writer that sends no content in an answer to {@code HEAD} (RFC 9110 §9.3.2), whoever wrote the answer:
 * the gateway's handlers, Helidon's metrics page, its 404, a direct handler's refusal. Helidon 4.5 writes an answer's
 * content whatever the request's method, so a 405 to {@code curl -I} or a load balancer's {@code HEAD} probe would
 * carry its JSON body, which the client, reading a head only, takes as the start of the next answer on the connection.
 *
 * <pre>
 *   request line HEAD ──{@link #answering}──> head passes: interim (1xx) heads, then the final head
 *                                             content dropped, as the final head frames it: Content-Length bytes,
 *                                             a chunked body to its last chunk and trailers, else to the end
 *                                             ──> every byte after it passes again (a next answer)
 *   any other method  ──────────────────────> every byte passes
 * </pre>
 *
 * <p>The head keeps its {@code Content-Length}: the length the same request with {@code GET} would have been answered
 * with, as RFC 9110 §8.6 allows. The connection's next request line arms or disarms it again.
 *
 * <p>Thread-safe: the state is only written on the connection's thread (the request line, the answer's writes) and
 * guarded by this object's lock; a method that is not {@code HEAD} costs one volatile read a write.
 */
final class HeadAnswers implements DataWriter {
    /** A head longer than this is no head the gateway or Helidon writes: passed on as it is. */
    private static final int LONGEST_HEAD = 64 * 1024;

    private final DataWriter delegate;
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private volatile State state = State.PASS;
    /** Content bytes still to drop ({@link State#LENGTH}), or of the current chunk ({@link State#CHUNK_DATA}). */
    private long left;

    private enum State {
        /** Every byte passes: the request is not HEAD, or its answer's content is over. */
        PASS,
        /** Reading an answer's head: its bytes pass. */
        HEAD,
        /** Dropping {@link #left} bytes of a Content-Length body. */
        LENGTH,
        /** Dropping a chunk size line. */
        CHUNK_SIZE,
        /** Dropping {@link #left} bytes of chunk data and its CRLF. */
        CHUNK_DATA,
        /** Dropping the trailer section, a line at a time, to its empty line. */
        TRAILERS,
        /** Dropping everything: content delimited by the connection's end. */
        ALL
    }

    HeadAnswers(DataWriter delegate) {
        this.delegate = requireNonNull(delegate, "delegate");
    }

    /** A request line was read: its answer's content is dropped when {@code head} (its method is HEAD). */
    synchronized void answering(boolean head) {
        this.head.reset();
        line.reset();
        left = 0;
        state = head ? State.HEAD : State.PASS;
    }

    @Override
    public void write(BufferData... buffers) {
        if (state == State.PASS) {
            delegate.write(buffers);
            return;
        }
        for (BufferData buffer : buffers) {
            write(buffer);
        }
    }

    @Override
    public void write(BufferData buffer) {
        if (state == State.PASS) {
            delegate.write(buffer);
            return;
        }
        BufferData kept = kept(buffer);
        if (kept.available() > 0) {
            delegate.write(kept);
        }
    }

    @Override
    public void writeNow(BufferData... buffers) {
        if (state == State.PASS) {
            delegate.writeNow(buffers);
            return;
        }
        for (BufferData buffer : buffers) {
            writeNow(buffer);
        }
    }

    @Override
    public void writeNow(BufferData buffer) {
        if (state == State.PASS) {
            delegate.writeNow(buffer);
            return;
        }
        BufferData kept = kept(buffer);
        if (kept.available() > 0) {
            delegate.writeNow(kept);
        }
    }

    @Override
    public void flush() {
        delegate.flush();
    }

    @Override
    public void close() {
        delegate.close();
    }

    /** The bytes of {@code buffer} that are not content of the answer to a HEAD request. */
    private synchronized BufferData kept(BufferData buffer) {
        byte[] bytes = new byte[buffer.available()];
        buffer.read(bytes);
        byte[] kept = new byte[bytes.length];
        int keptLength = 0;
        for (byte b : bytes) {
            if (state == State.PASS || state == State.HEAD) {
                kept[keptLength++] = b;
                if (state == State.HEAD) {
                    headByte(b);
                }
            } else {
                contentByte(b);
            }
        }
        return BufferData.create(kept, 0, keptLength);
    }

    private void headByte(byte b) {
        head.write(b);
        int n = head.size();
        if (n > LONGEST_HEAD) {
            state = State.PASS;
            return;
        }
        if (b != '\n' || n < 4) {
            return;
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        if (!text.endsWith("\r\n\r\n")) {
            return;
        }
        head.reset();
        framed(text);
    }

    /** The content that follows the head {@code text}, as its status and fields frame it. */
    private void framed(String text) {
        int status = text.length() > 12 ? parseStatus(text) : 0;
        if (status >= 100 && status < 200) {
            return; // an interim answer; the final head follows
        }
        if (status == 204 || status == 304) {
            state = State.PASS;
            return;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("\r\ntransfer-encoding:") && lower.contains("chunked")) {
            state = State.CHUNK_SIZE;
            return;
        }
        int at = lower.indexOf("\r\ncontent-length:");
        if (at < 0) {
            state = State.ALL;
            return;
        }
        int end = lower.indexOf('\r', at + 2);
        try {
            left = Long.parseLong(
                    lower.substring(at + "\r\ncontent-length:".length(), end).strip());
        } catch (NumberFormatException e) {
            state = State.ALL;
            return;
        }
        state = left > 0 ? State.LENGTH : State.PASS;
    }

    private static int parseStatus(String text) {
        try {
            return Integer.parseInt(text.substring(9, 12));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private void contentByte(byte b) {
        switch (state) {
            case LENGTH -> {
                if (--left == 0) {
                    state = State.PASS;
                }
            }
            case CHUNK_SIZE -> {
                if (b != '\n') {
                    line.write(b);
                    return;
                }
                String size = line.toString(StandardCharsets.ISO_8859_1).strip();
                line.reset();
                int extension = size.indexOf(';');
                try {
                    left = Long.parseLong(
                            extension < 0 ? size : size.substring(0, extension).strip(), 16);
                } catch (NumberFormatException e) {
                    state = State.ALL;
                    return;
                }
                // The data, then its CRLF; the last chunk has neither, and trailers follow it.
                if (left == 0) {
                    state = State.TRAILERS;
                } else {
                    left += 2;
                    state = State.CHUNK_DATA;
                }
            }
            case CHUNK_DATA -> {
                if (--left == 0) {
                    state = State.CHUNK_SIZE;
                }
            }
            case TRAILERS -> {
                if (b != '\n') {
                    line.write(b);
                    return;
                }
                boolean empty =
                        line.toString(StandardCharsets.ISO_8859_1).strip().isEmpty();
                line.reset();
                if (empty) {
                    state = State.PASS;
                }
            }
            default -> {
                // ALL: dropped
            }
        }
    }
}
