package grid.gateway.app.forward;

import java.io.IOException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The part of a request body that the kernel did not take at once ({@link UpstreamConnection#writeWithoutWaiting}),
 * written on a virtual thread of its own while the exchange's thread waits for the answer's head. A body the socket's
 * buffers take whole (most prompts on a plain connection) needs no thread: a thread per body cost a third of the
 * gateway's throughput at 32 KiB bodies. An engine may answer before it has read the whole
 * body (a 400 or 413 right after the head, and then it reads no more): written on the exchange's thread, the body would
 * block once the socket buffers fill, and the answer would wait unread until the idle timeout cut the connection.
 *
 * <pre>
 *   exchange thread:  write head ─ read answer head ───────────────── relay
 *   writer thread:                 write body, a slice at a time ─ done   (or stopped by an answer that came first)
 * </pre>
 *
 * <p>RFC 9112 §9.5: a client that sees an answer while it still sends the body stops sending it
 * ({@link #stop()}); the connection then holds part of a request, so it is closed after that answer, never pooled.
 * The writer's slices are watched by an idle alarm of their own (each write may wait at most the idle timeout, then
 * the connection is closed): the exchange's alarm watches the answer's reads, one operation at a time. The whole
 * write is bounded by the exchange's head deadline ({@code first_byte_timeout_ms}, counted from the head's write):
 * when no head has come by then the exchange fails and closes the connection, which ends a write in progress, so an
 * engine that reads one slice per idle timeout holds the exchange no longer than a silent one.
 *
 * <p>Each slice is copied from the body into the writer's own 64 KiB array and written from there, and a stop lets go
 * of the body at once: a slice blocked in a write after an early answer (it ends only when the connection closes,
 * after that answer) holds its 64 KiB, not the whole body, whose bytes the request has given back to the body budget
 * by then ({@link ForwardRequest#answerBegan()}).
 *
 * <p>Thread-safe: the writer thread writes; any thread may ask or stop.
 */
final class BodyWriter {
    /** Bytes per write: between two slices the writer looks whether it was stopped. */
    static final int SLICE = 64 * 1024;

    /**
     * How long an answer's head waits for the writer to end ({@link #writtenWithin}): far longer than the few
     * instructions between a last write's return and its end, even on a busy machine, and short beside any answer a
     * client waits for. An engine that stopped reading costs its early answer this much.
     */
    static final Duration GRACE = Duration.ofMillis(20);

    private final UpstreamConnection connection;
    private final IdleAlarm alarm;
    private final int length;
    /** The slice being written: a copy, so that a write blocked after a stop holds no part of the body. */
    private final byte[] slice;
    /** Where the slice is counted while the writer holds it: the request's, given back when the writer ends. */
    private final AnswerMemory memory;
    /** The body; null once stopped. */
    private volatile byte @Nullable [] body;
    /** Where the next slice starts in the body; the writer thread's own. */
    private int at;

    private volatile boolean written;
    private final Thread thread;

    private BodyWriter(UpstreamConnection connection, byte[] body, int from, IdleAlarm alarm, AnswerMemory memory) {
        this.connection = connection;
        this.alarm = alarm;
        this.memory = memory;
        this.body = body;
        this.length = body.length;
        this.at = from;
        this.slice = new byte[Math.min(SLICE, body.length - from)];
        this.thread = Thread.ofVirtual().name("upstream-body").unstarted(this::write);
    }

    /**
     * Starts writing {@code body} from {@code from} to {@code connection}, each slice watched by {@code alarm} (armed:
     * it closes the connection when a slice waits longer than the idle timeout); the slice is counted in {@code memory}
     * until the writer ends (after an early answer: when its connection closes, after that answer).
     */
    static BodyWriter start(
            UpstreamConnection connection, byte[] body, int from, IdleAlarm alarm, AnswerMemory memory) {
        BodyWriter writer = new BodyWriter(connection, body, from, alarm, memory);
        memory.hold(writer.slice.length);
        try {
            writer.thread.start();
        } catch (RuntimeException | Error e) {
            memory.release(writer.slice.length);
            throw e;
        }
        return writer;
    }

    private void write() {
        try {
            int n;
            while ((n = nextSlice()) > 0) {
                alarm.write(connection, slice, 0, n);
            }
            written = n == 0;
        } catch (IOException | RuntimeException e) {
            // The connection was closed or reset: the exchange's thread meets that on its own reads, or has an
            // answer that came first and closes this connection after it.
        } finally {
            alarm.close();
            memory.release(slice.length);
        }
    }

    /**
     * Copies the next slice of the body into {@link #slice}: its length, 0 once the whole body is written, -1 once
     * stopped. The body is read from its field here only, never held across a write.
     */
    private int nextSlice() {
        if (at == length) {
            return 0;
        }
        byte[] whole = body;
        if (whole == null) {
            return -1;
        }
        int n = Math.min(slice.length, length - at);
        System.arraycopy(whole, at, slice, 0, n);
        at += n;
        return n;
    }

    /**
     * Whether every byte of the body was written, the writer given up to {@code grace} to end first. An answer can
     * come right after the body's last bytes (the engine read them and answered) while the writer, its last write
     * returned, has not yet said so; a writer still blocked after the grace is writing to an engine that stopped
     * reading. An interrupt (the client left) ends the wait: the body then counts as not whole.
     */
    boolean writtenWithin(Duration grace) {
        if (!written) {
            try {
                thread.join(grace);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return written;
    }

    /** Whether a slice waited longer than the idle timeout (and the connection was closed for it). */
    boolean timedOut() {
        return alarm.fired();
    }

    /**
     * Sends no more of the body and lets go of it: an answer came (or the exchange failed). A slice being written now
     * is no longer watched; it ends when the connection closes, which it does after that answer.
     */
    void stop() {
        body = null;
        alarm.close();
    }
}
