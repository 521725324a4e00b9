package grid.gateway.app.forward;

import java.io.IOException;
import java.util.function.Supplier;

/**
 * A request body that does not go out with its head ({@link RequestHeads#ONE_WRITE}), written on a virtual thread of
 * its own while the exchange's thread waits for the answer's head. An engine may answer before it has read the whole
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
 * the connection is closed): the exchange's alarm watches the answer's reads, one operation at a time.
 *
 * <p>Thread-safe: the writer thread writes; any thread may ask or stop.
 */
final class BodyWriter {
    /** Bytes per write: between two slices the writer looks whether it was stopped. */
    static final int SLICE = 64 * 1024;

    private final IdleAlarm alarm;
    private volatile boolean stopped;
    private volatile boolean written;

    private BodyWriter(IdleAlarm alarm) {
        this.alarm = alarm;
    }

    /**
     * Starts writing {@code body} to {@code connection}; {@code alarm} gives the armed alarm that watches each slice
     * (it closes the connection when one waits longer than the idle timeout).
     */
    static BodyWriter start(UpstreamConnection connection, byte[] body, Supplier<IdleAlarm> alarm) {
        BodyWriter writer = new BodyWriter(alarm.get());
        Thread.ofVirtual().name("upstream-body").start(() -> writer.write(connection, body));
        return writer;
    }

    private void write(UpstreamConnection connection, byte[] body) {
        try {
            for (int at = 0; at < body.length && !stopped; at += SLICE) {
                alarm.write(connection, body, at, Math.min(SLICE, body.length - at));
            }
            written = !stopped;
        } catch (IOException | RuntimeException e) {
            // The connection was closed or reset: the exchange's thread meets that on its own reads, or has an
            // answer that came first and closes this connection after it.
        } finally {
            alarm.close();
        }
    }

    /** Whether every byte of the body was written. */
    boolean written() {
        return written;
    }

    /** Whether a slice waited longer than the idle timeout (and the connection was closed for it). */
    boolean timedOut() {
        return alarm.fired();
    }

    /**
     * Sends no more of the body: an answer came (or the exchange failed). A slice being written now is no longer
     * watched; it ends when the connection closes, which it does after that answer.
     */
    void stop() {
        stopped = true;
        alarm.close();
    }
}
