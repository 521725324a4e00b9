package grid.gateway.app.sharing;

import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.prefix.PrefixMemory;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * A loopback RESP server for the sharing threads' failure paths: while {@link #garbage} is set the stream commands
 * (XADD, XREAD) are answered with bytes no Redis sends; otherwise they are answered as Redis would (XADD a fresh id,
 * XREAD nothing new). The connection's setup (CLIENT SETNAME, PING) is always answered, so each thread reaches its
 * own command.
 * It counts what it was asked in each mode, for a test to wait on. With an SSL context it speaks TLS
 * ({@code rediss://}).
 *
 * <p>Thread-safe: one virtual thread per connection.
 */
final class FakeRedis implements AutoCloseable {
    /** What a broken server or a middlebox may send: a map whose length is not a number. */
    static final byte[] GARBAGE = "%%%garbage\r\n".getBytes(StandardCharsets.US_ASCII);

    /** What {@link #asked} calls a connection accepted. */
    static final String CONNECTION = "(connection)";

    /** What {@link #asked} calls a connection accepted after a connection stopped being read ({@link #stallingAfter}). */
    static final String RECONNECTION = "(connection after the stall)";

    private final ServerSocket server;
    private final List<Socket> sockets = new ArrayList<>();
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<String, Semaphore> asked = new ConcurrentHashMap<>();
    private volatile byte[] garbage;
    private volatile @Nullable XreadAnswer xread;
    /** The command after which a connection is never read again (a server or proxy that stopped reading). */
    private volatile @Nullable String stallAfter;

    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean stalled;

    /** Writes an XREAD's answer, given the command's arguments. */
    @FunctionalInterface
    interface XreadAnswer {
        void write(List<String> command, OutputStream out) throws IOException;
    }

    FakeRedis(byte[] garbage) throws IOException {
        this(garbage, null);
    }

    /** Over TLS with {@code tls}'s certificate, or plain when null. */
    FakeRedis(byte[] garbage, @Nullable SSLContext tls) throws IOException {
        this(garbage, tls, 0);
    }

    /** As {@link #FakeRedis(byte[], SSLContext)}, its connections receiving into {@code receiveBuffer} bytes (0: the default). */
    private FakeRedis(byte[] garbage, @Nullable SSLContext tls, int receiveBuffer) throws IOException {
        this.garbage = garbage;
        this.server =
                tls == null ? new ServerSocket() : tls.getServerSocketFactory().createServerSocket();
        if (receiveBuffer > 0) {
            // Set before bind, so that the accepted connections advertise a window this small.
            server.setReceiveBufferSize(receiveBuffer);
        }
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        Thread.ofVirtual().start(this::accept);
    }

    /**
     * A server that answers as Redis would until it is sent {@code command}, and then never reads that connection again
     * (it stays open): a small receive buffer, so that the client's writes soon find no room.
     */
    static FakeRedis stallingAfter(String command, @Nullable SSLContext tls) throws IOException {
        FakeRedis redis = new FakeRedis(null, tls, 4096);
        redis.stallAfter = command;
        return redis;
    }

    int port() {
        return server.getLocalPort();
    }

    /** Sharing through this server's database 0 on {@code stream}: no password, no warm-start wait, no waits. */
    SharingSettings settings(String stream) {
        return new SharingSettings(
                Optional.of(URI.create("redis://127.0.0.1:" + port() + "/0")),
                stream,
                Optional.empty(),
                Duration.ZERO,
                false,
                Duration.ZERO);
    }

    /**
     * The sharing reader of replica {@code replica} reading this server's stream {@code stream} into {@code memory},
     * counting in {@code meters}; not started.
     */
    SharingReader reader(String replica, String stream, PrefixMemory memory, SharingMeters meters) {
        SharingSettings settings = settings(stream);
        return new SharingReader(
                replica,
                settings.stream(),
                RedisEndpoint.of(settings),
                new SharingReader.Targets(memory, Optional.empty(), new PeerAcks(), id -> {}),
                new SharingPublisher.Context(meters, () -> 0, () -> 1_000, () -> 0));
    }

    /** From now on, answers a sane XREAD with what {@code answer} writes. */
    void xread(XreadAnswer answer) {
        xread = answer;
    }

    /** From now on, answers as Redis would ({@code null}) or with {@code reply}. */
    void answer(byte[] reply) {
        garbage = reply;
    }

    /** Whether {@code command} was asked {@code times} more times, answered sanely ({@code sane}) or not, within 20 s. */
    boolean asked(String command, boolean sane, int times) throws InterruptedException {
        return asks(command, sane).tryAcquire(times, 20, TimeUnit.SECONDS);
    }

    /** As {@link #asked(String, boolean, int)}, once. */
    boolean asked(String command, boolean sane) throws InterruptedException {
        return asked(command, sane, 1);
    }

    private Semaphore asks(String command, boolean sane) {
        return asked.computeIfAbsent(command + (sane ? ":sane" : ":garbage"), k -> new Semaphore(0));
    }

    private void accept() {
        try {
            while (true) {
                Socket socket = server.accept();
                synchronized (sockets) {
                    sockets.add(socket);
                }
                asks(CONNECTION, true).release();
                if (stalled) {
                    asks(RECONNECTION, true).release();
                }
                Thread.ofVirtual().start(() -> serve(socket));
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                List<String> command = command(in);
                if (command == null) {
                    return;
                }
                String name = command.getFirst().toUpperCase(Locale.ROOT);
                byte[] bad = name.startsWith("X") ? garbage : null;
                boolean stall = name.equals(stallAfter);
                // Set before the command is counted: a connection accepted once a test saw it is a reconnection.
                stalled |= stall;
                asks(name, bad == null).release();
                if (stall) {
                    closed.await(); // reads nothing more, answers nothing more
                    return;
                }
                XreadAnswer answer = xread;
                if (bad == null && answer != null && name.equals("XREAD")) {
                    answer.write(command, out);
                } else {
                    out.write(bad != null ? bad : reply(name));
                }
                out.flush();
            }
        } catch (IOException | RuntimeException gone) {
            // the client closed the connection
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private byte[] reply(String name) {
        String reply = switch (name) {
            case "PING" -> "+PONG\r\n";
            case "XADD" -> {
                String id = "1-" + ids.incrementAndGet();
                yield "$" + id.length() + "\r\n" + id + "\r\n";
            }
            case "XREAD" -> "*-1\r\n";
            default -> "+OK\r\n";
        };
        return reply.getBytes(StandardCharsets.US_ASCII);
    }

    private static List<String> command(InputStream in) throws IOException {
        String header = line(in);
        if (header == null) {
            return null;
        }
        int count = Integer.parseInt(header.substring(1));
        List<String> args = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int length = Integer.parseInt(line(in).substring(1));
            byte[] arg = in.readNBytes(length + 2);
            args.add(new String(arg, 0, length, StandardCharsets.ISO_8859_1));
        }
        return args;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                return null;
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        closed.countDown();
        server.close();
        synchronized (sockets) {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
