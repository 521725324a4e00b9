package grid.gateway.app.bench.streams;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One streamed Chat Completion on a connection ({@link ClientConnection}: its own, or one a completed stream left
 * open): sends the request, reads the answer's head and its body (chunked, by length, or until the connection
 * closes), splits the body into server-sent events and checks them.
 *
 * <p>The check needs nothing of the engine but what vLLM sends: a stream asked with {@code include_usage} ends with a
 * chunk whose {@code usage.completion_tokens} says how many tokens were generated, and every generated token came in
 * an event with a non-empty {@code delta.content}. A stream whose count of such events differs from the usage lost
 * events (fewer) or duplicated them (more). A stream without its usage chunk or {@code [DONE]} did not end.
 *
 * <p>Not thread-safe; one per stream.
 */
final class SseExchange {
    private static final byte[] CONTENT = "\"delta\":{\"content\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] USAGE = "\"completion_tokens\":".getBytes(StandardCharsets.US_ASCII);

    /** How a stream ended. */
    enum Ending {
        /** Every event arrived once, usage and {@code [DONE]} included. */
        COMPLETE,
        /** Complete, but fewer token events than the usage reports. */
        LOST,
        /** Complete, but more token events than the usage reports. */
        DUPLICATED,
        /** The answer was not a 200, or ended before {@code [DONE]}, or the connection failed. */
        ERROR,
        /** Stopped by the caller (the run ended, or a probe had its first event). */
        STOPPED
    }

    /** What reading the stream observed. */
    record Result(Ending ending, long firstEventNanos, int tokenEvents, String detail) {}

    private final ClientConnection connection;
    private final boolean keep;
    private final Tally tally;
    private final ReadPace pace;
    private final AtomicInteger streaming;
    private int tokenEvents;
    private long reported = -1;
    private boolean done;

    /**
     * A stream on a connection of its own, counted in {@code tally}, read at {@code pace}; {@code streaming} counts it
     * while its body flows.
     */
    SseExchange(Tally tally, ReadPace pace, AtomicInteger streaming) {
        this(new ClientConnection(), false, tally, pace, streaming);
    }

    /**
     * A stream on {@code connection} (opened here when it is not open), which is left open for the next stream when
     * {@code keep} and the answer was read whole and complete; otherwise closed.
     */
    SseExchange(ClientConnection connection, boolean keep, Tally tally, ReadPace pace, AtomicInteger streaming) {
        this.connection = connection;
        this.keep = keep;
        this.tally = tally;
        this.pace = pace;
        this.streaming = streaming;
    }

    /** Closes the socket from another thread: the reading thread ends with {@link Ending#STOPPED}. */
    void abort() {
        connection.close();
    }

    /**
     * Sends {@code request} to {@code target} and reads the answer; with {@code firstEventOnly} it returns at the first
     * event. {@code stopped} tells whether a failure is the caller's own stop.
     */
    Result run(InetSocketAddress target, byte[] request, boolean firstEventOnly, BooleanSupplier stopped) {
        long start = System.nanoTime();
        long first = -1;
        boolean reusable = false;
        try {
            if (!connection.isOpen()) {
                connection.open(target, pace);
            }
            OutputStream out = connection.out();
            out.write(request);
            out.flush();
            InputStream in = connection.in();
            HttpBody body = HttpBody.read(in);
            pace.bodyStarts(in);
            if (body.status() != 200) {
                return new Result(Ending.ERROR, -1, 0, "status " + body.status());
            }
            streaming.incrementAndGet();
            try {
                EventSplitter events = new EventSplitter();
                byte[] buffer = new byte[pace.bufferSize()];
                int n;
                while ((n = body.read(buffer)) >= 0) {
                    int count = events.accept(buffer, n, this::event);
                    if (count > 0 && first < 0) {
                        first = System.nanoTime() - start;
                        if (firstEventOnly) {
                            return new Result(Ending.STOPPED, first, tokenEvents, "");
                        }
                    }
                }
                Result result = ended(first);
                reusable = body.reusable() && result.ending() == Ending.COMPLETE;
                return result;
            } finally {
                streaming.decrementAndGet();
            }
        } catch (IOException e) {
            if (stopped.getAsBoolean()) {
                return new Result(Ending.STOPPED, first, tokenEvents, "");
            }
            return new Result(Ending.ERROR, first, tokenEvents, e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            if (!(keep && reusable)) {
                abort();
            }
        }
    }

    private Result ended(long first) {
        if (!done || reported < 0) {
            return new Result(Ending.ERROR, first, tokenEvents, done ? "no usage chunk" : "no [DONE]");
        }
        if (tokenEvents < reported) {
            return new Result(Ending.LOST, first, tokenEvents, tokenEvents + " of " + reported);
        }
        if (tokenEvents > reported) {
            return new Result(Ending.DUPLICATED, first, tokenEvents, tokenEvents + " for " + reported);
        }
        return new Result(Ending.COMPLETE, first, tokenEvents, "");
    }

    /** One whole event's bytes. */
    private void event(byte[] bytes, int length) {
        tally.event();
        if (startsWith(bytes, length, "data: [DONE]")) {
            done = true;
            return;
        }
        int content = indexOf(bytes, length, CONTENT);
        if (content >= 0 && content + CONTENT.length < length && bytes[content + CONTENT.length] != '"') {
            tokenEvents++;
        }
        int usage = indexOf(bytes, length, USAGE);
        if (usage >= 0) {
            long value = 0;
            for (int i = usage + USAGE.length; i < length && bytes[i] >= '0' && bytes[i] <= '9'; i++) {
                value = value * 10 + bytes[i] - '0';
            }
            reported = value;
        }
    }

    private static boolean startsWith(byte[] bytes, int length, String prefix) {
        if (length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (bytes[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static int indexOf(byte[] bytes, int length, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Reads exactly one byte or fails at the end of the stream. */
    static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("connection closed");
        }
        return b;
    }
}
