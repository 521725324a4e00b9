package grid.gateway.app.sharing;

import java.io.IOException;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A deadline on the replies a Redis connection owes: from the moment a command is written while none was owed, every
 * reply owed must have arrived whole within the timeout, or the watch closes the socket (the plain one under any TLS,
 * as {@link WriteDeadline} does) and the blocked read fails. The socket's read timeout bounds each read only, so a
 * Redis, or a proxy in front of it, that trickles a reply a byte within every read timeout would otherwise hold the
 * sharing thread for as long as it trickles: the reader applying no peer's entry, the publisher writing none, and
 * nothing said.
 *
 * <p>Commands are counted as the client writes them ({@link ReplyBounds} over the output: a command is framed as a
 * reply is), replies as they are read; a push or an attribute answers no command, and a reply nothing was owed for
 * (a reply to a command never sent, read with the reply owed or alone) refuses the connection.
 *
 * <p>Thread-safe: the connection's one thread writes and reads; the watch only closes.
 */
final class ReplyDeadline {
    private final Socket socket;
    private final long timeoutMillis;
    private final ReplyBounds commands = new ReplyBounds();
    private final AtomicBoolean cut = new AtomicBoolean();
    private long commandsCounted;
    private long repliesCounted;
    private long owed;
    private @Nullable ScheduledFuture<?> alarm;
    private @Nullable ProtocolException unasked;

    /** Replies on a socket over {@code plain}, each owed one whole within {@code timeoutMillis}. */
    ReplyDeadline(Socket plain, long timeoutMillis) {
        this.socket = plain;
        this.timeoutMillis = timeoutMillis;
    }

    /** The client wrote {@code bytes[offset..offset + length)}: the commands they end are owed a reply each. */
    synchronized void written(byte[] bytes, int offset, int length) throws ProtocolException {
        commands.scan(bytes, offset, length);
        owed += commands.ended() - commandsCounted;
        commandsCounted = commands.ended();
        if (owed > 0 && alarm == null) {
            alarm = WriteDeadline.WATCH.schedule(this::cut, timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * {@code ended} whole replies have been read so far: once none is owed, the deadline is off.
     *
     * @throws ProtocolException when more replies have been read than commands written: a reply to a command never
     *     sent would be taken for the answer to the next one, and every answer after it for the one before (RESP
     *     carries no request ids), so the connection is refused from then on
     */
    synchronized void read(long ended) throws ProtocolException {
        ProtocolException already = unasked;
        if (already != null) {
            throw already;
        }
        long answered = ended - repliesCounted;
        repliesCounted = ended;
        if (answered > owed) {
            stop();
            unasked = new ProtocolException("Redis reply refused: " + (answered - owed) + " reply(s) to no command");
            throw unasked;
        }
        owed -= answered;
        if (owed == 0) {
            stop();
        }
    }

    /** The connection closes: nothing more is owed. */
    synchronized void stop() {
        if (alarm != null) {
            alarm.cancel(false);
            alarm = null;
        }
    }

    /** {@code failed}, or what it means when the deadline closed the socket under it. */
    IOException explained(IOException failed) {
        if (!cut.get()) {
            return failed;
        }
        SocketException late =
                new SocketException("Redis owed a reply for more than " + timeoutMillis + " ms; connection closed");
        late.initCause(failed);
        return late;
    }

    private void cut() {
        cut.set(true);
        try {
            socket.close();
        } catch (IOException e) {
            // Closing: the blocked read fails either way.
        }
    }
}
