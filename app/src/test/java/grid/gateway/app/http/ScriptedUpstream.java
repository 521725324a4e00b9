package grid.gateway.app.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: an engine on a raw {@link ServerSocket} (127.0.0.1, port 0) that a test scripts byte by byte. Each
 * accepted connection reads one request (head and Content-Length body), then runs the script, which may write any
 * bytes, pause, reset the connection or wait for the gateway to close it. Envoy's FakeUpstream, in miniature: full
 * control over what the gateway reads, and a record of when the gateway lets go of the connection.
 *
 * <p>Unlike a simulated engine it sees exactly what the gateway wrote: {@link #requests()} keeps every request's
 * bytes (the queue scraper's {@code GET /metrics} aside, which gets an empty page), so a test can assert that
 * nothing arrived, or that the body bytes are identical; {@link #connections()} counts the connections accepted.
 */
final class ScriptedUpstream implements AutoCloseable {
    /** The head of a streamed (server-sent events, chunked) 200 answer. */
    static final String SSE_HEAD =
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

    /** One request as received: the head (request line and headers) and the body bytes. */
    record Request(String head, byte[] body) {
        String target() {
            return head.substring(head.indexOf(' ') + 1, head.indexOf(' ', head.indexOf(' ') + 1));
        }
    }

    /** What one accepted connection does after reading a request. */
    @FunctionalInterface
    interface Script {
        void run(Exchange exchange) throws Exception;
    }

    /**
     * A stream of events ({@code data: {"n":0}}, then 1, 2, …) in {@link #SSE_HEAD}'s chunks: the first at once, the
     * rest one every 20 ms once {@code clientGone} is counted down, until a write fails (the gateway closed this
     * connection after its client left) or 400 are sent.
     */
    static Script eventsUntilClosed(CountDownLatch clientGone) {
        return e -> {
            e.write(SSE_HEAD);
            e.write(UpstreamFaultsIntegrationTest.chunk("data: {\"n\":0}\n\n"));
            clientGone.await(10, TimeUnit.SECONDS);
            for (int i = 1; i < 400; i++) {
                e.write(UpstreamFaultsIntegrationTest.chunk("data: {\"n\":" + i + "}\n\n"));
                TimeUnit.MILLISECONDS.sleep(20);
            }
        };
    }

    /** One request on one connection, and the means to answer it. */
    static final class Exchange {
        /** How long a wait on the kernel's socket queues parks between two looks: 1 ms. */
        private static final long POLL_NANOS = 1_000_000L;

        final String head;
        final byte[] body;
        final Socket socket;
        final InputStream in;
        final OutputStream out;
        /** The TCP socket under {@link #socket} (the same socket on a plain connection). */
        volatile Socket tcp;

        /** When the gateway closed this connection ({@link System#nanoTime}), once {@link #awaitPeerClose} saw it. */
        volatile long peerClosedAt;

        Exchange(String head, byte[] body, Socket socket) throws IOException {
            this.head = head;
            this.body = body;
            this.socket = socket;
            this.tcp = socket;
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
        }

        /** The certificate the gateway showed on this connection's TLS handshake; null for none (or plain TCP). */
        java.security.cert.@Nullable X509Certificate clientCertificate() {
            if (!(socket instanceof javax.net.ssl.SSLSocket tls)) {
                return null;
            }
            try {
                return (java.security.cert.X509Certificate) tls.getSession().getPeerCertificates()[0];
            } catch (javax.net.ssl.SSLPeerUnverifiedException none) {
                return null;
            }
        }

        /** Writes {@code text} (ISO-8859-1, so any byte can be written) and flushes it to the socket. */
        void write(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        /**
         * Ends the TCP connection with a FIN and no TLS close_notify (over plain TCP: a FIN), as a crashed engine's
         * kernel or a cutting middlebox does: the TLS peer may not take it for the end the engine meant.
         */
        void finWithoutCloseNotify() throws IOException {
            tcp.shutdownOutput();
        }

        /**
         * Waits until the kernel holds bytes the gateway has not read on this connection (the receive queue of the
         * gateway's end in {@code /proc/net/tcp}): what was written is there to be found by the gateway's next read.
         */
        void awaitUnreadAtTheGateway() throws IOException {
            awaitQueues(false, "the bytes written never reached the gateway's socket");
        }

        /**
         * Waits until the gateway has read everything written so far: nothing unacknowledged at this end, nothing
         * unread at the gateway's. What is written next comes to the gateway in a read of its own.
         */
        void awaitReadByTheGateway() throws IOException {
            awaitQueues(true, "the gateway never read the bytes written");
        }

        private void awaitQueues(boolean drained, String failure) throws IOException {
            String gatewayEnd = String.format(Locale.ROOT, ":%04X", tcp.getPort());
            String engineEnd = String.format(Locale.ROOT, ":%04X", tcp.getLocalPort());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                long unread = -1;
                long unacknowledged = -1;
                for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                    for (String line : Files.readAllLines(Path.of(table))) {
                        String[] f = line.strip().split("\\s+");
                        if (f.length > 4 && f[1].endsWith(gatewayEnd) && f[2].endsWith(engineEnd)) {
                            unread = Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
                        } else if (f.length > 4 && f[1].endsWith(engineEnd) && f[2].endsWith(gatewayEnd)) {
                            unacknowledged = Long.parseLong(f[4].substring(0, f[4].indexOf(':')), 16);
                        }
                    }
                }
                if (drained ? unread == 0 && unacknowledged == 0 : unread > 0) {
                    return;
                }
                // Parks between looks rather than spins: this runs on a virtual thread, and a spin would hold one
                // of the carriers the gateway's own threads (the reader awaited here among them) need to run.
                LockSupport.parkNanos(POLL_NANOS);
            }
            throw new AssertionError(failure);
        }

        /**
         * Resets the TCP connection (linger zero, then close; no TLS close_notify) and waits until the gateway's kernel
         * took the reset: the gateway's end of the connection is no longer established in the kernel's table.
         */
        void resetAndAwaitTheGatewaysEnd() throws IOException {
            String ends = ends();
            tcp.setSoLinger(true, 0);
            tcp.close();
            awaitTheGatewaysEnd(ends);
        }

        /**
         * Closes the connection as an engine's keep-alive timeout does: the socket closed ({@code tls}: over TLS, its
         * close_notify first) or the TCP connection ended with a FIN alone; then waits until the gateway's kernel took
         * the end (the gateway's end is no longer established).
         */
        void closeAndAwaitTheGatewaysEnd(boolean tls) throws IOException {
            String ends = ends();
            if (tls) {
                socket.close();
            } else {
                tcp.shutdownOutput();
            }
            awaitTheGatewaysEnd(ends);
        }

        private String ends() {
            return String.format(Locale.ROOT, ":%04X :%04X", tcp.getPort(), tcp.getLocalPort());
        }

        /**
         * Waits until the connection {@code ends} names (the gateway's port, then the engine's) is no longer
         * established at the gateway's end in the kernel's table: gone (a reset), waiting for the gateway's close (a
         * FIN), or closed by the gateway already.
         */
        private static void awaitTheGatewaysEnd(String ends) throws IOException {
            String gatewayEnd = ends.substring(0, ends.indexOf(' '));
            String engineEnd = ends.substring(ends.indexOf(' ') + 1);
            // A generous bound that only stops a hung test: the end is taken as soon as the kernel runs.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                boolean open = false;
                for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                    for (String line : Files.readAllLines(Path.of(table))) {
                        String[] f = line.strip().split("\\s+");
                        open |= f.length > 4
                                && f[1].endsWith(gatewayEnd)
                                && f[2].endsWith(engineEnd)
                                && f[3].equals("01");
                    }
                }
                if (!open) {
                    return;
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
            throw new AssertionError("the gateway's end never took the engine's end of the connection");
        }

        /** Sends a TCP reset: linger zero, then close. */
        void reset() throws IOException {
            socket.setSoLinger(true, 0);
            socket.close();
        }

        /**
         * Blocks until the gateway closes this connection (a read sees end of stream or a reset) or {@code millis}
         * pass; returns whether it closed. The gateway sends nothing after its request, so any read result means
         * it let go.
         */
        boolean awaitPeerClose(long millis) throws IOException {
            socket.setSoTimeout((int) millis);
            byte[] drained = new byte[64 * 1024];
            try {
                while (in.read(drained) >= 0) {
                    // Body bytes left unread, or a pipelined byte (a protocol error of the gateway): keep reading for
                    // the close, a buffer at a time (megabytes read a byte per call took seconds on a busy machine).
                }
            } catch (java.net.SocketTimeoutException timeout) {
                return false;
            } catch (SocketException reset) {
                // A reset is a close too.
            }
            peerClosedAt = System.nanoTime();
            return true;
        }
    }

    final BlockingQueue<Exchange> exchanges = new LinkedBlockingQueue<>();
    /** Connections accepted, the queue scraper's included. */
    final AtomicInteger accepted = new AtomicInteger();
    /** Connections whose script returned without closing them, still open. */
    final AtomicInteger open = new AtomicInteger();
    /** Connections the gateway closed (an end of stream) while this engine waited for their next request. */
    final java.util.Set<Socket> closedWhileIdle = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * False: each request's script runs as soon as its head is read, its body left unread in the socket (an engine
     * that answers before it reads the body); {@link Exchange#body} is then empty.
     */
    volatile boolean readsBody = true;

    /**
     * False: the next request's script runs once its request line is read, the rest of its head left in the socket
     * (an engine that refuses a request at its request line or at a header limit); {@link Exchange#head} is then the
     * request line alone. The engine reads the next request from what follows, the rest of that head first.
     */
    volatile boolean readsWholeHead = true;

    volatile Script script =
            e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + "Content-Length: 2\r\n\r\n{}");

    private final List<Request> received = new ArrayList<>();
    private final ServerSocket server;
    private final String scheme;
    private final @Nullable SSLContext tls;
    /** The TLS versions connections accepted from now on may use; null: the JDK's defaults. */
    volatile String @Nullable [] tlsProtocols;
    /** Whether connections accepted from now on ask the gateway for a client certificate (and take it without one). */
    volatile boolean wantsClientCertificate;
    /**
     * Whether the end of a TLS connection (the script's close, a fatal alert) closes its TCP connection too; false: a
     * script ends the TCP connection itself ({@link Exchange#tcp}).
     */
    volatile boolean tlsClosesTcp = true;

    private final Thread acceptor;
    private final CountDownLatch stopped = new CountDownLatch(1);

    ScriptedUpstream() {
        this(null);
    }

    /** An engine that serves HTTPS with {@code tls}'s certificate. */
    ScriptedUpstream(@Nullable SSLContext tls) {
        try {
            // TLS is layered over each accepted TCP socket, so a script can end the TCP connection under it.
            server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.tls = tls;
        scheme = tls == null ? "http" : "https";
        acceptor = Thread.ofVirtual().name("scripted-upstream").start(this::acceptLoop);
    }

    /**
     * Gives connections accepted from now on a receive buffer of {@code bytes} (fixed, so the kernel does not grow
     * it): what the gateway can write before an engine that reads nothing blocks it.
     */
    void receiveBuffer(int bytes) {
        try {
            server.setReceiveBufferSize(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String url() {
        return scheme + "://127.0.0.1:" + server.getLocalPort();
    }

    /** Every request received so far (the scraper's aside), in order; {@link #take()} does not remove them here. */
    synchronized List<Request> requests() {
        return List.copyOf(received);
    }

    /** Connections accepted so far, the queue scraper's included. */
    int connections() {
        return accepted.get();
    }

    Exchange take() throws InterruptedException {
        Exchange exchange = exchanges.poll(10, TimeUnit.SECONDS);
        if (exchange == null) {
            throw new AssertionError("the scripted upstream received no request");
        }
        return exchange;
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                accepted.incrementAndGet();
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException closed) {
                stopped.countDown();
                return;
            }
        }
    }

    private void serve(Socket tcp) {
        open.incrementAndGet();
        try (tcp;
                Socket socket = layered(tcp)) {
            while (true) {
                Exchange exchange = readRequest(socket, readsBody, readsWholeHead);
                if (exchange == null) {
                    closedWhileIdle.add(tcp);
                    return;
                }
                exchange.tcp = tcp;
                if (exchange.head.startsWith("GET /metrics ")) {
                    // The gateway's queue scraper: an empty page (unmeasured), not recorded.
                    exchange.write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n");
                    continue;
                }
                synchronized (this) {
                    received.add(new Request(exchange.head, exchange.body));
                }
                exchanges.add(exchange);
                script.run(exchange);
                if (socket.isClosed()) {
                    return;
                }
            }
        } catch (Exception e) {
            // The gateway went away, or the script reset the connection: both are what tests provoke.
        } finally {
            open.decrementAndGet();
        }
    }

    /** Reads one request: its head up to the blank line and, if {@code body}, a Content-Length body; null at its end. */
    /** The accepted TCP socket, or a server-side TLS socket over it. */
    private Socket layered(Socket tcp) throws IOException {
        if (tls == null) {
            return tcp;
        }
        javax.net.ssl.SSLSocket socket = (javax.net.ssl.SSLSocket) tls.getSocketFactory()
                .createSocket(tcp, tcp.getInetAddress().getHostAddress(), tcp.getPort(), tlsClosesTcp);
        socket.setUseClientMode(false);
        String[] protocols = tlsProtocols;
        if (protocols != null) {
            socket.setEnabledProtocols(protocols);
        }
        socket.setWantClientAuth(wantsClientCertificate);
        return socket;
    }

    private static Exchange readRequest(Socket socket, boolean body, boolean wholeHead) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
            head.write(b);
            int n = head.size();
            byte[] h = head.toByteArray();
            if (n >= 4 && h[n - 4] == '\r' && h[n - 3] == '\n' && h[n - 2] == '\r' && h[n - 1] == '\n') {
                break;
            }
            if (!wholeHead
                    && n >= 2
                    && h[n - 2] == '\r'
                    && h[n - 1] == '\n'
                    && !head.toString(StandardCharsets.ISO_8859_1).startsWith("GET /metrics ")) {
                break;
            }
        }
        if (b < 0) {
            return null;
        }
        String text = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        return new Exchange(
                text, body || text.startsWith("GET /metrics ") ? in.readNBytes(length) : new byte[0], socket);
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // closing a test server
        }
        try {
            stopped.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        acceptor.interrupt();
    }
}
