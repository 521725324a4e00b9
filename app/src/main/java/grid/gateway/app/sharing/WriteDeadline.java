package grid.gateway.app.sharing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Redis connection's output with a deadline on every write, flush and close: one that waits longer than the timeout
 * for room in the socket's send buffer (a Redis, or a proxy in front of it, that accepted the connection and stopped
 * reading) has the socket closed by the watch, so the write fails and the thread reconnects. The socket's read
 * timeout bounds reads only; without this a pipelined XADD larger than the send buffer would block the publisher for
 * ever.
 *
 * <p>Closing the socket is bounded alike ({@link #closeSocket}): a TLS socket's close writes a {@code close_notify},
 * which waits for room as a write does. The watch closes the plain socket (the TLS one's, over TLS): closing the TLS
 * socket from the watch would itself write a {@code close_notify}, or wait for the lock the blocked write holds.
 *
 * <p>Thread-safe for one writing thread plus the watch.
 */
final class WriteDeadline extends OutputStream {
    /**
     * One daemon thread watches every Redis write and reply of the process ({@link ReplyDeadline}): each is rare and its
     * task is cancelled at once.
     */
    static final ScheduledThreadPoolExecutor WATCH = watch();

    private final OutputStream out;
    /** What the watch closes: the plain socket under any TLS. */
    private final Socket socket;

    private final long timeoutMillis;
    private final AtomicBoolean cut = new AtomicBoolean();
    /** Told every command written, so that the replies they are owed have a deadline. */
    private final ReplyDeadline replies;

    /**
     * The output {@code out} of a socket over {@code plain}, each write within {@code timeoutMillis}, each command
     * written told to {@code replies}.
     */
    WriteDeadline(OutputStream out, Socket socket, long timeoutMillis, ReplyDeadline replies) {
        this.out = out;
        this.socket = socket;
        this.timeoutMillis = timeoutMillis;
        this.replies = replies;
    }

    private static ScheduledThreadPoolExecutor watch() {
        ScheduledThreadPoolExecutor watch = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().daemon().name("grid-redis-write-watch").factory());
        // A cancelled task leaves the queue at once, not at its deadline.
        watch.setRemoveOnCancelPolicy(true);
        return watch;
    }

    @FunctionalInterface
    private interface Write {
        void run() throws IOException;
    }

    private void watched(Write write) throws IOException {
        ScheduledFuture<?> alarm = WATCH.schedule(this::cut, timeoutMillis, TimeUnit.MILLISECONDS);
        try {
            write.run();
        } catch (IOException e) {
            if (cut.get()) {
                SocketException timedOut =
                        new SocketException("Redis took no bytes for " + timeoutMillis + " ms; connection closed");
                timedOut.initCause(e);
                throw timedOut;
            }
            throw e;
        } finally {
            alarm.cancel(false);
        }
    }

    private void cut() {
        cut.set(true);
        try {
            socket.close();
        } catch (IOException e) {
            // Closing: the blocked write fails either way.
        }
    }

    /** Closes {@code real} (the socket whose output this is), within the deadline. */
    void closeSocket(Socket real) throws IOException {
        replies.stop();
        watched(real::close);
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        watched(() -> out.write(bytes, offset, length));
        replies.written(bytes, offset, length);
    }

    @Override
    public void flush() throws IOException {
        watched(out::flush);
    }

    @Override
    public void close() throws IOException {
        watched(out::close);
    }
}
