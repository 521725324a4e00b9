package grid.gateway.app.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads a request body of at most {@code max_body_bytes} within {@code body_timeout_ms}, held once as bytes: it is
 * keyed, then forwarded.
 *
 * <p>Stateless and thread-safe. A declared {@code Content-Length} over the limit is refused before any byte is
 * read; a chunked body is read up to one byte past the limit, never further, so an endless body costs at most the
 * limit. Memory follows the bytes that actually arrived, never the declared length: the first buffer is at most
 * 16 KiB (a pooled one, {@link ScratchBuffers}, when the body may be longer) and it grows by doubling (up to the declared length, so a body of its declared length needs no final copy).
 * Each buffer is reserved in the process-wide {@link BodyBudget} before it is allocated; a reservation the budget
 * refuses ends the read ({@link Outcome.OverBudget}).
 *
 * <p>Helidon 4.5 has no read deadline for a request body. A body Helidon already holds whole ({@link ConnectionBuffer})
 * cannot block, so it is read on the handler's thread. One that has not arrived whole is read on the handler's
 * thread too when its connection's socket is reachable ({@link BodyDeadline}): an alarm at the deadline shuts the
 * socket's input, which ends the blocked read, and the handler answers 408 on the still open output. Otherwise (TLS,
 * HTTP/2) it is read on a helper virtual thread while the handler's thread waits for at most the deadline; when the
 * deadline passes, the handler still owns the response and answers 408; closing the connection afterwards ends the
 * helper's blocked read. Any failure of the read itself (a chunk size
 * Helidon's decoder refuses, a chunk extension, a client that went away mid-body) is {@link Outcome.Unreadable}: the
 * framing of the connection can no longer be trusted.
 */
public final class BoundedBody {
    /** The first buffer of a body: what arrives, not what is declared, decides how much more is allocated. */
    static final int FIRST_BUFFER = 16 * 1024;

    private static final int SINK = 16 * 1024;
    /** What {@link #grow} returns when the budget refuses the larger buffer. */
    private static final byte[] REFUSED = new byte[0];

    private BoundedBody() {}

    /** What reading a body gave. */
    public sealed interface Outcome {
        /** The whole body. */
        record Read(byte[] bytes) implements Outcome {}

        /** Larger than the limit (declared or counted). */
        record TooLarge() implements Outcome {}

        /** Not complete within the deadline. */
        record TimedOut() implements Outcome {}

        /** The process-wide budget of body bytes in memory is spent. */
        record OverBudget() implements Outcome {}

        /** The body's framing broke, or the client went away mid-body; {@code cause} says how (for the log). */
        record Unreadable(String cause) implements Outcome {}
    }

    /**
     * The body, or why there is none, reading at most {@code maxBytes} for at most {@code deadline}, its buffers
     * reserved in {@code hold}; {@code alarm} ends a read still blocked at the deadline.
     */
    static Outcome read(
            ServerRequest request, long maxBytes, Duration deadline, BodyBudget.Hold hold, BodyDeadline.Alarm alarm) {
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
        ConnectionContext ctx = ConnectionBuffer.connection(request);
        return read(
                new Arrival(
                        () -> opened(request),
                        declared,
                        ConnectionBuffer.unread(ctx, request),
                        ctx == null ? null : BodyDeadline.endRead(ctx)),
                maxBytes,
                hold,
                new Waits(deadline, HELPER, alarm));
    }

    /**
     * A body as it stands when the handler starts: its stream, declared length (-1: chunked), bytes held unread (-1:
     * unknown), and what ends a read of it blocked at the deadline ({@code null}: nothing, read it on a helper).
     */
    record Arrival(
            Supplier<InputStream> body,
            long declared,
            long buffered,
            @Nullable Runnable endRead) {}

    /** How a body that may block is waited for: at most {@code deadline}, by an alarm or on a helper thread. */
    record Waits(Duration deadline, Helper helper, BodyDeadline.Alarm alarm) {}

    /** Starts the helper thread a body that may block is read on; a seam for tests. */
    interface Helper {
        void start(Runnable read);
    }

    private static final Helper HELPER =
            read -> Thread.ofVirtual().name("grid-body-reader").start(read);

    /**
     * The body of declared length {@code declared} (-1: chunked) from {@code body}, on the handler's thread when no
     * read can block (Helidon already holds at least {@code declared} unread bytes) or when a read blocked at the
     * deadline can be ended ({@code endRead}, by the alarm); otherwise on a thread the helper starts, waited for at
     * most the deadline.
     */
    static Outcome read(Arrival arrival, long maxBytes, BodyBudget.Hold hold, Waits waits) {
        Supplier<InputStream> body = arrival.body();
        long declared = arrival.declared();
        if (declared >= 0 && arrival.buffered() >= declared) {
            return readHere(body, declared, maxBytes, hold);
        }
        Runnable endRead = arrival.endRead();
        if (endRead != null) {
            BodyDeadline.Expiry expiry = new BodyDeadline.Expiry(endRead);
            Runnable cancel = waits.alarm().arm(waits.deadline(), expiry);
            Outcome outcome = readHere(body, declared, maxBytes, hold);
            if (!expiry.finish()) {
                // The alarm came first: it shut the input (which may be what ended the read) and the body is late.
                return new Outcome.TimedOut();
            }
            cancel.run();
            return outcome;
        }
        FutureTask<Outcome> task = new FutureTask<>(() -> readAll(body, declared, maxBytes, hold));
        waits.helper().start(task);
        try {
            return task.get(waits.deadline().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException slow) {
            return new Outcome.TimedOut();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading a request body", e);
        } catch (ExecutionException e) {
            return unreadable(e.getCause() == null ? e : e.getCause());
        }
    }

    private static Outcome readHere(Supplier<InputStream> body, long declared, long maxBytes, BodyBudget.Hold hold) {
        try {
            return readAll(body, declared, maxBytes, hold);
        } catch (RuntimeException e) {
            return unreadable(e);
        }
    }

    // Helidon's chunk decoder throws NumberFormatException, IllegalArgumentException or its own data exceptions on
    // bad framing, and an I/O exception when the client goes away: all the same to us. A chunk announced over the
    // limit, refused at its size line (RequestLineKeeper), makes the body too large; one the budget has no room for,
    // over the budget.
    private static Outcome unreadable(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof ChunkOverLimit) {
                return new Outcome.TooLarge();
            }
            if (c instanceof ChunkOverBudget) {
                return new Outcome.OverBudget();
            }
        }
        return new Outcome.Unreadable(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    /**
     * The body read to its end, or why not. Helidon's entity stream is closed only after a whole body: its close reads
     * one more chunk when the entity has not ended, and after a chunk size line that failed to parse, or a body cut at
     * the limit, that read waits for bytes the client may never send, holding the answer until the body's deadline
     * (a 408 where a 400 or 413 was due). Every other outcome ends the connection, so nothing reads the entity again.
     */
    private static Outcome readAll(Supplier<InputStream> body, long declared, long maxBytes, BodyBudget.Hold hold) {
        try {
            InputStream in = body.get();
            Outcome outcome = read(in, declared, maxBytes, hold);
            if (outcome instanceof Outcome.Read) {
                in.close();
            }
            return outcome;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads {@code in} to its end. The first buffer is at most {@value #FIRST_BUFFER} bytes (a pooled one when the
     * body may be longer); a full buffer is probed with a one-byte read before it grows, by doubling, to at most
     * {@code declared} (when known, else one byte past {@code maxBytes}), so a body of its declared length is
     * returned in the buffer it was read into, with no copy. Every buffer is reserved in {@code hold} before it is
     * used. {@link Outcome.TooLarge} once more than {@code maxBytes} were read (at most one byte more is read).
     *
     * @param declared the declared {@code Content-Length}, or -1 for a chunked body
     */
    static Outcome read(InputStream in, long declared, long maxBytes, BodyBudget.Hold hold) throws IOException {
        return read(in, declared, maxBytes, hold, ScratchBuffers.SHARED);
    }

    /** {@link #read(InputStream, long, long, BodyBudget.Hold)}, the first buffer of a longer body from {@code pool}. */
    static Outcome read(InputStream in, long declared, long maxBytes, BodyBudget.Hold hold, ScratchBuffers pool)
            throws IOException {
        long cap = declared >= 0 ? declared : maxBytes + 1;
        Bounds bounds = new Bounds(cap, maxBytes);
        if (cap <= FIRST_BUFFER) {
            // Known to fit: its own array from the start, of the exact declared length.
            int first = (int) Math.max(1, cap);
            return hold.reserve(first) ? readInto(in, new byte[first], 0, bounds, hold) : new Outcome.OverBudget();
        }
        if (!hold.reserve(FIRST_BUFFER)) {
            return new Outcome.OverBudget();
        }
        byte[] scratch = pool.take();
        try {
            int size = fill(in, scratch);
            if (size > maxBytes) {
                return new Outcome.TooLarge();
            }
            if (size < scratch.length) {
                return new Outcome.Read(Arrays.copyOf(scratch, size));
            }
            int next = in.read();
            if (next < 0) {
                return new Outcome.Read(scratch.clone());
            }
            if (size + 1L > maxBytes) {
                return new Outcome.TooLarge();
            }
            byte[] grown = grow(scratch, size, cap, hold);
            if (grown == REFUSED) {
                return new Outcome.OverBudget();
            }
            grown[size] = (byte) next;
            return readInto(in, grown, size + 1, bounds, hold);
        } finally {
            pool.give(scratch);
        }
    }

    /** Reads into {@code buffer} until it is full or {@code in} ends; how many bytes it holds. */
    private static int fill(InputStream in, byte[] buffer) throws IOException {
        int size = 0;
        int n;
        while (size < buffer.length && (n = in.read(buffer, size, buffer.length - size)) >= 0) {
            size += n;
        }
        return size;
    }

    /** {@code buffer}'s first {@code size} bytes in a buffer twice as long (at most {@code cap}); empty: refused. */
    private static byte[] grow(byte[] buffer, int size, long cap, BodyBudget.Hold hold) {
        int grown = (int) Math.min((long) size * 2, Math.max(cap, size + 1L));
        // The old buffer is garbage (or back in the pool) once copied: the hold tracks the live buffer's size.
        if (!hold.reserve(grown - (long) buffer.length)) {
            return REFUSED;
        }
        return Arrays.copyOf(buffer, grown);
    }

    /** How far a body's buffer grows ({@code cap}) and how long the body may be ({@code max}). */
    private record Bounds(long cap, long max) {}

    /** Reads the rest of the body into {@code buffer}, which holds {@code size} bytes of it, growing it as needed. */
    private static Outcome readInto(InputStream in, byte[] buffer, int size, Bounds bounds, BodyBudget.Hold hold)
            throws IOException {
        long maxBytes = bounds.max();
        while (true) {
            if (size == buffer.length) {
                int next = in.read();
                if (next < 0) {
                    return new Outcome.Read(buffer);
                }
                if (size + 1L > maxBytes) {
                    return new Outcome.TooLarge();
                }
                buffer = grow(buffer, size, bounds.cap(), hold);
                if (buffer == REFUSED) {
                    return new Outcome.OverBudget();
                }
                buffer[size++] = (byte) next;
            }
            int n = in.read(buffer, size, buffer.length - size);
            if (n < 0) {
                return new Outcome.Read(size == buffer.length ? buffer : Arrays.copyOf(buffer, size));
            }
            size += n;
            if (size > maxBytes) {
                return new Outcome.TooLarge();
            }
        }
    }

    /**
     * The request's entity stream, registered in its context: Helidon gives a request's entity stream once, and a
     * body refused part-read (over the limit or the budget) is drained through the same stream ({@link #linger}).
     */
    private static InputStream opened(ServerRequest request) {
        InputStream in = request.content().inputStream();
        request.context().register(new OpenedBody(in));
        return in;
    }

    /** The entity stream {@link #opened} gave a request. */
    private record OpenedBody(InputStream in) {}

    /**
     * Reads and discards what the client is still sending of a refused body before the caller closes the connection
     * ({@link Lingering}), through the entity stream a part-read body opened, else a new one. Where the body's framing
     * no longer holds (a chunk refused at its size line ends the connection's bytes for Helidon's reader,
     * {@link RequestLineKeeper}, whether that chunk was the one read or one met while draining), the rest is read from
     * the connection's socket itself: nothing on the connection is read as a request again, and the client still
     * sending that chunk must not be reset.
     */
    public static void linger(ServerRequest request) {
        // Looked up on the handler's thread: the connection is a thread-local of the thread that read the headers.
        ConnectionContext ctx = ConnectionBuffer.connection(request);
        Lingering.drain(
                request,
                () -> request.context()
                        .get(OpenedBody.class)
                        .map(OpenedBody::in)
                        .orElseGet(() -> request.content().inputStream()),
                ctx == null ? null : ctx.serverSocket());
    }

    private static long parseLength(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
