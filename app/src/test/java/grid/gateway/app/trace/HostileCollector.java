package grid.gateway.app.trace;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;

/**
 * A collector that misbehaves on a real socket (127.0.0.1, port 0): each connection is handed to the {@link Script}
 * in force when it is accepted, and once the script is done the collector reads what is left until the gateway
 * closes the connection, which it counts. Counts are awaited with a bound, never slept for.
 */
final class HostileCollector implements AutoCloseable {
    /** What the collector does with one accepted connection. */
    @FunctionalInterface
    interface Script {
        void play(Socket socket, InputStream in, OutputStream out) throws IOException;
    }

    private final ServerSocket server;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile Script script;
    private int accepted;
    private int closed;
    private int counted;

    HostileCollector(Script script) {
        this.script = script;
        try {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofVirtual().start(this::accept);
    }

    /** The base URL, as {@code tracing.otlp_endpoint} is written. */
    String url() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    int port() {
        return server.getLocalPort();
    }

    /** The script for the connections accepted from now on. */
    void play(Script next) {
        script = next;
    }

    private void accept() {
        try {
            while (true) {
                Socket socket = server.accept();
                Script playing = script;
                sockets.add(socket);
                count(true);
                Thread.ofVirtual().start(() -> serve(socket, playing));
            }
        } catch (IOException closedDown) {
            // The test is over.
        }
    }

    private void serve(Socket socket, Script playing) {
        try (socket) {
            InputStream in = socket.getInputStream();
            playing.play(socket, in, socket.getOutputStream());
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException gone) {
            // A reset by the gateway ends the connection as a close does.
        }
        count(false);
    }

    private void count(boolean accept) {
        lock.lock();
        try {
            if (accept) {
                accepted++;
            } else {
                closed++;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until at least {@code count} connections were accepted; fails the test after {@code bound}. */
    void awaitAccepted(int count, Duration bound) throws InterruptedException {
        await(count, bound, "accepted", () -> accepted);
    }

    /** Waits until the gateway closed at least {@code count} connections; fails the test after {@code bound}. */
    void awaitClosed(int count, Duration bound) throws InterruptedException {
        await(count, bound, "closed by the gateway", () -> closed);
    }

    /** Waits until {@link #counted} read at least {@code count} requests; fails the test after {@code bound}. */
    void awaitCounted(int count, Duration bound) throws InterruptedException {
        await(count, bound, "counted", () -> counted);
    }

    private void await(int count, Duration bound, String what, IntSupplier seen) throws InterruptedException {
        long left = bound.toNanos();
        lock.lock();
        try {
            while (seen.getAsInt() < count) {
                if (left <= 0) {
                    throw new AssertionError(String.format(
                            Locale.ROOT,
                            "%d of %d %s; accepted %d, closed %d, counted %d",
                            seen.getAsInt(),
                            count,
                            what,
                            accepted,
                            closed,
                            counted));
                }
                left = changed.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Reads one request (head and a body of its Content-Length); false when the connection ended first. */
    static boolean request(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            head.write(b);
            byte[] seen = head.toByteArray();
            int n = seen.length;
            if (n >= 4 && seen[n - 4] == '\r' && seen[n - 3] == '\n' && seen[n - 2] == '\r' && seen[n - 1] == '\n') {
                String text = head.toString(StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
                int at = text.indexOf("content-length:");
                long length = at < 0
                        ? 0
                        : Long.parseLong(
                                text.substring(at + 15, text.indexOf('\r', at)).trim());
                in.skipNBytes(length);
                return true;
            }
        }
        return false;
    }

    /** A counting variant of {@link #request}, for scripts that want the collector to count what it read. */
    boolean counted(InputStream in) throws IOException {
        boolean read = request(in);
        if (read) {
            lock.lock();
            try {
                counted++;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
        return read;
    }

    /** A status line and the given header lines, ended by the blank line. */
    static String head(int status, String... fields) {
        StringBuilder text = new StringBuilder("HTTP/1.1 ").append(status).append(" X\r\n");
        for (String field : fields) {
            text.append(field).append("\r\n");
        }
        return text.append("\r\n").toString();
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing only.
            }
        }
    }
}
