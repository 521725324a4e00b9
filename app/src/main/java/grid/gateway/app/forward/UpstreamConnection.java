package grid.gateway.app.forward;

import grid.gateway.routing.grid.ClusterId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;

/**
 * One open connection to a backend cluster (docs/design.md §H18): its socket (TLS over the plain one for https), the
 * reader its answers are parsed from, and how many answers it carried, so that the forwarder knows a reused
 * connection from a fresh one.
 *
 * <p>An idle connection is checked before it is reused ({@link #isQuiet()}): it must have nothing to read. Bytes that
 * arrived while it was idle (the rest of an answer longer than it said, anything an engine writes unasked) or the
 * engine's close (its keep-alive timeout) take it out of use. Bytes written after that check are read where the next
 * answer begins; what can be told is no answer to that request ({@link NotThisAnswer}: bytes that cannot begin a
 * status line, an answer naming an earlier request, {@link #namesAnEarlierRequest}) is never relayed.
 *
 * <pre>
 *   pooled ──acquire: isQuiet()──> in use (one exchange) ──answer read exactly, nothing buffered──> pooled
 *                                        └── anything else ──> closed
 * </pre>
 *
 * <p>Not thread-safe, except {@link #close()}, which any thread may call (the idle alarm, a shutdown cut) to end a
 * blocked read or write at once (a TLS connection with a write in progress loses its close_notify for that), and except that one thread may write a request's body while another reads the
 * answer ({@link BodyWriter}): the socket's two directions are independent.
 */
final class UpstreamConnection {
    /**
     * How many of the requests sent before the one in progress an answer's {@code X-Request-Id} is checked against
     * ({@link #namesAnEarlierRequest}).
     */
    static final int EARLIER_IDS = 16;

    /**
     * The longest a TLS close waits to write its {@code close_notify}: one small record, which goes at once into a send
     * buffer with any room; one that finds none (an engine that stopped reading, its buffers full of a body the kernel
     * took whole) would wait for ever, the socket's timeouts bounding reads only. The channel is closed then.
     */
    static final long CLOSE_NOTIFY_MILLIS = 1_000;

    private final Origin origin;
    private final SocketChannel channel;
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final AnswerReader reader;
    private final ScheduledExecutorService watchdog;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Writes in progress: a TLS socket cannot be closed first while one is blocked ({@link #close()}). */
    private final AtomicInteger writing = new AtomicInteger();

    private final ByteBuffer probe = ByteBuffer.allocate(1);
    /** Whether {@link #isQuiet()} found bytes beyond the answers read here. */
    private boolean leftover;
    /**
     * Told of bytes found beyond the answers read here: the cluster of the request sent last, whose answer is the
     * last read here (a connection to an origin two clusters share carries the requests of both).
     */
    private Consumer<LeftoverFound> leftovers = found -> {};
    /** The cluster of the request sent last, and of the one before it (whose answer was read last when it went). */
    private @Nullable ClusterId sentFor;

    private @Nullable ClusterId sentBeforeFor;

    private int answers;
    private long idleSince;
    private long openedAt;
    /** The {@code X-Request-Id}s of the latest requests sent on this connection, the newest last. */
    private final ArrayDeque<String> requestIds = new ArrayDeque<>();

    /**
     * A connection over {@code socket}, which is {@code channel}'s own socket or a TLS socket layered over it;
     * {@code watchdog} bounds a TLS close ({@link #CLOSE_NOTIFY_MILLIS}).
     *
     * @throws IOException if the socket's streams cannot be had
     */
    UpstreamConnection(Origin origin, SocketChannel channel, Socket socket, ScheduledExecutorService watchdog)
            throws IOException {
        this.origin = origin;
        this.watchdog = watchdog;
        this.channel = channel;
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = socket.getInputStream();
        this.reader = new AnswerReader(socket, channel.socket());
    }

    Origin origin() {
        return origin;
    }

    /**
     * The memory this connection holds while idle in the pool: its reader's buffer ({@link AnswerReader#BUFFER}), and
     * over TLS what the JDK's record layer may hold for it, an application buffer and a packet buffer at the sizes its
     * session reports (the JDK tells no more exact figure).
     */
    long heldBytes() {
        long held = AnswerReader.BUFFER;
        if (socket instanceof SSLSocket tls) {
            SSLSession session = tls.getSession();
            held += (long) session.getApplicationBufferSize() + session.getPacketBufferSize();
        }
        return held;
    }

    AnswerReader reader() {
        return reader;
    }

    /** Whether this connection carried an answer before the exchange in progress. */
    boolean reused() {
        return answers > 0;
    }

    /**
     * Whether a TLS handshake failure met in the exchange in progress refused this connection before its engine took
     * anything: only in its first exchange, and only under TLS 1.3, whose server refuses a client certificate after
     * the client's side of the handshake is done (the request is then written, never read). Under TLS 1.2 the
     * handshake ends before a request is written, so one failing later is a renegotiation the engine began after it
     * took the request, as is one failing on a reused connection.
     */
    boolean refusedByItsHandshake() {
        return answers == 0
                && socket instanceof SSLSocket tls
                && "TLSv1.3".equals(tls.getSession().getProtocol());
    }

    /**
     * A request of {@code cluster}'s with the id {@code requestId} is sent now; {@code leftovers} is told of bytes found
     * beyond its answer, as that answer ends or while the connection is idle after it ({@link #tellLeftover}).
     */
    void requestSent(String requestId, ClusterId cluster, Consumer<LeftoverFound> leftovers) {
        if (requestIds.size() > EARLIER_IDS) {
            requestIds.removeFirst();
        }
        requestIds.addLast(requestId);
        this.leftovers = leftovers;
        this.sentBeforeFor = sentFor;
        this.sentFor = cluster;
    }

    /**
     * The cluster of the request sent before the one in progress, whose answer was the last read here when it went:
     * what the exchange in progress meets before its own answer (bytes that cannot begin a status line, an answer
     * too many) is that answer's engine's; empty on a connection's first request.
     */
    Optional<ClusterId> clusterAnsweredBefore() {
        return Optional.ofNullable(sentBeforeFor);
    }

    /**
     * Bytes beyond the answers read here were found ({@code found}: as the answer in progress ended, or while idle):
     * told to the request sent last, whose answer left them.
     */
    void tellLeftover(LeftoverFound found) {
        leftovers.accept(found);
    }

    /**
     * Whether {@code answerId}, the {@code X-Request-Id} of the answer to the request in progress (whose id is
     * {@code id}), names one of the {@link #EARLIER_IDS} requests sent before it on this connection rather than this
     * one: that answer was written for an earlier request ({@link UpstreamForwarder}). Never when it names {@code id}
     * (a client that sends one id again, a retry).
     */
    boolean namesAnEarlierRequest(String answerId, String id) {
        return !answerId.equals(id) && requestIds.contains(answerId);
    }

    /** The exchange in progress got its answer read exactly: the connection has carried one more. */
    void answered() {
        answers++;
    }

    /** Writes a request's bytes. */
    void write(byte[] bytes, int offset, int length) throws IOException {
        writing.incrementAndGet();
        try {
            // Counted before this look, and close() sets closed before it counts: a write that starts as the
            // connection closes either sees it closed here or is seen by close().
            if (closed.get()) {
                throw new IOException("the connection is closed");
            }
            out.write(bytes, offset, length);
        } finally {
            writing.decrementAndGet();
        }
    }

    /**
     * Writes what the kernel takes of {@code bytes} at once, without waiting for room, and returns how many it took.
     * A TLS connection takes none here: its records go out through the TLS socket, which cannot write without waiting.
     */
    int writeWithoutWaiting(byte[] bytes, int offset, int length) throws IOException {
        if (socket instanceof SSLSocket) {
            return 0;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes, offset, length);
        channel.configureBlocking(false);
        try {
            while (buffer.hasRemaining() && channel.write(buffer) > 0) {
                // The kernel took some and may take more.
            }
        } finally {
            channel.configureBlocking(true);
        }
        return buffer.position() - offset;
    }

    /** Sets the read timeout (a socket option: each read waits at most this long). */
    void readTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** When it went back to the pool ({@link System#nanoTime}). */
    long idleSince() {
        return idleSince;
    }

    void idleSince(long nanos) {
        idleSince = nanos;
    }

    /** When it was opened, on the pool's clock ({@link ConnectionPool#opened}). */
    long openedAt() {
        return openedAt;
    }

    void openedAt(long nanos) {
        openedAt = nanos;
    }

    /**
     * Whether bytes past the answer are already held on this side: in the reader's buffer, or decrypted and held by
     * the TLS socket (a record that carried the answer's end and more).
     */
    boolean hasUnread() {
        try {
            return reader.buffered() > 0 || in.available() > 0;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Whether the idle connection can carry a request: open, nothing held ({@link #hasUnread()}), and nothing to read
     * from the socket (checked without waiting: the channel is switched to non-blocking for one read). A byte read here
     * is one no answer may ever see, and the connection is closed by the caller anyway.
     */
    boolean isQuiet() {
        if (closed.get()) {
            return false;
        }
        if (hasUnread()) {
            leftover = true;
            return false;
        }
        try {
            channel.configureBlocking(false);
            try {
                probe.clear();
                int n = channel.read(probe);
                // Over TLS a byte here may be the engine's close_notify as well as answer bytes: only plain TCP tells.
                leftover = n > 0 && !(socket instanceof SSLSocket);
                return n == 0;
            } finally {
                // Blocking again however the read ended (an engine's reset fails it): the close that follows writes a
                // TLS close_notify through this channel, which a non-blocking channel refuses with a runtime exception.
                channel.configureBlocking(true);
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether the last {@link #isQuiet()} that failed found bytes beyond the answers read here
     * ({@link LeftoverFound#IDLE}): held unread, or read from a plain-TCP socket; not the engine's close, nor a byte
     * read over TLS.
     */
    boolean leftoverFound() {
        return leftover;
    }

    /** Closes the connection; idempotent, from any thread. A blocked read or write fails at once. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            if (socket instanceof SSLSocket && writing.get() > 0) {
                // A TLS socket's close writes its close_notify under the lock a blocked write holds, so it would wait
                // for that write, which waits for an engine that reads no more (an early answer, a stalled engine):
                // the closing thread (a relay, the watchdog) would hang. Closing the channel first ends the write.
                closeChannel();
            }
            // With no write in progress the close_notify can still find the send buffer full: bounded, then the
            // channel is closed under it.
            ScheduledFuture<?> bound = socket instanceof SSLSocket && channel.isOpen()
                    ? watchdog.schedule(this::closeChannel, CLOSE_NOTIFY_MILLIS, TimeUnit.MILLISECONDS)
                    : null;
            try {
                socket.close();
            } catch (IOException | RuntimeException e) {
                // Closing: nothing more to do with it. A TLS close that cannot write its close_notify (a channel not in
                // blocking mode refuses it with a runtime exception) must not fail whoever closes, nor leave the
                // channel open: it is closed below whatever happened here.
            } finally {
                if (bound != null) {
                    bound.cancel(false);
                }
            }
            closeChannel();
        }
    }

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException e) {
            // Already closed with its socket.
        }
    }

    boolean isClosed() {
        return closed.get();
    }
}
