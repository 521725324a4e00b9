package grid.gateway.app.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a request body of at most {@code max_body_bytes} within {@code body_timeout_ms}, held once as bytes: it is
 * keyed, then forwarded.
 *
 * <p>Stateless and thread-safe. A declared {@code Content-Length} over the limit is refused before any byte is
 * read; a chunked body is read up to one byte past the limit, never further, so an endless body costs at most the
 * limit. The buffer is sized from {@code Content-Length} when there is one, and such a body is neither grown nor
 * trimmed: it is held in the one array it was read into.
 *
 * <p>Helidon 4.5 has no read deadline for a request body, so the bytes are read on a helper virtual thread while the
 * handler's thread waits for at most the deadline. When it passes, the handler still owns the response and answers
 * 408; closing the connection afterwards ends the helper's blocked read.
 */
public final class BoundedBody {
    private static final int CHUNKED_INITIAL = 16 * 1024;
    /** How long a refused body is drained before its connection closes. */
    private static final Duration LINGER_TIME = Duration.ofSeconds(2);
    /** How much of a refused body is drained at most before its connection closes. */
    private static final long LINGER_BYTES = 64L * 1024 * 1024;

    private BoundedBody() {}

    /** What reading a body gave. */
    public sealed interface Outcome {
        /** The whole body. */
        record Read(byte[] bytes) implements Outcome {}

        /** Larger than the limit (declared or counted). */
        record TooLarge() implements Outcome {}

        /** Not complete within the deadline. */
        record TimedOut() implements Outcome {}
    }

    /** The body, or why there is none, reading at most {@code maxBytes} for at most {@code deadline}. */
    public static Outcome read(ServerRequest request, long maxBytes, Duration deadline) {
        if (!request.content().hasEntity()) {
            return new Outcome.Read(new byte[0]);
        }
        long declared = request.headers()
                .first(HeaderNames.CONTENT_LENGTH)
                .map(BoundedBody::parseLength)
                .orElse(-1L);
        if (declared > maxBytes) {
            return new Outcome.TooLarge();
        }
        FutureTask<Outcome> task = new FutureTask<>(() -> readAll(request, declared, maxBytes));
        Thread.ofVirtual().name("grid-body-reader").start(task);
        try {
            return task.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException slow) {
            return new Outcome.TimedOut();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading a request body", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure; // the client went away mid-body: Helidon closes the connection
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private static Outcome readAll(ServerRequest request, long declared, long maxBytes) {
        int initial = declared >= 0 ? (int) declared : (int) Math.min(CHUNKED_INITIAL, maxBytes + 1);
        try (InputStream in = request.content().inputStream()) {
            return read(in, initial, maxBytes).<Outcome>map(Outcome.Read::new).orElseGet(Outcome.TooLarge::new);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads {@code in} to its end into a buffer of {@code initial} bytes, grown by doubling; empty once more than
     * {@code maxBytes} were read (at most one byte more is read). A full buffer is probed with a one-byte read before
     * it grows, so a body of its declared length is returned in the buffer it was read into, with no copy.
     */
    static Optional<byte[]> read(InputStream in, int initial, long maxBytes) throws IOException {
        byte[] buffer = new byte[Math.max(initial, 1)];
        int size = 0;
        while (true) {
            if (size == buffer.length) {
                int next = in.read();
                if (next < 0) {
                    return Optional.of(buffer);
                }
                if (size + 1L > maxBytes) {
                    return Optional.empty();
                }
                buffer = Arrays.copyOf(buffer, (int) Math.min((long) size * 2, maxBytes + 1));
                buffer[size++] = (byte) next;
            }
            int n = in.read(buffer, size, buffer.length - size);
            if (n < 0) {
                return Optional.of(size == buffer.length ? buffer : Arrays.copyOf(buffer, size));
            }
            size += n;
            if (size > maxBytes) {
                return Optional.empty();
            }
        }
    }

    /**
     * Reads and discards what the client is still sending of a refused body, for at most {@link #LINGER_TIME} and
     * {@link #LINGER_BYTES}, before the caller closes the connection. Closing a socket with unread bytes makes the
     * kernel answer with a reset, which can destroy the 413 the client has not read yet (nginx's lingering close
     * solves the same problem).
     */
    public static void linger(ServerRequest request) {
        FutureTask<Void> drain = new FutureTask<>(() -> {
            try (InputStream in = request.content().inputStream()) {
                byte[] sink = new byte[CHUNKED_INITIAL];
                long left = LINGER_BYTES;
                int n;
                while (left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) >= 0) {
                    left -= n;
                }
            }
            return null;
        });
        Thread.ofVirtual().name("grid-body-linger").start(drain);
        try {
            drain.get(LINGER_TIME.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // Too slow, too long or already broken: the connection is closed anyway, which ends the drain.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long parseLength(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
