package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import io.helidon.common.buffers.BufferData;
import io.helidon.common.buffers.DataReader;
import io.helidon.common.buffers.DataWriter;
import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.PeerInfo;
import io.helidon.http.Headers;
import io.helidon.http.HttpPrologue;
import io.helidon.http.Method;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.ListenerContext;
import io.helidon.webserver.ProxyProtocolData;
import io.helidon.webserver.Router;
import io.helidon.webserver.ServerConnectionException;
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the bytes of each request line as the client sent them, so that the handler can see the method's case:
 * methods are case-sensitive (RFC 9110 §9.1), but Helidon 4.5's prologue parser upper-cases every method it reads
 * ({@code Method.create}), so {@code post} would arrive as {@code POST} and be forwarded as such.
 *
 * <p>The HTTP/1 connections of both listeners come from this selector, which wraps Helidon's own: each connection's
 * context hands Helidon a {@link DataReader} over the same socket that remembers the array its last
 * {@code readBytes} returned. Helidon reads the request line with exactly one {@code readBytes} right before it tells
 * the receive listeners of the prologue, so the client listener's receive listener ({@link #receiveListener}) takes
 * that array as the raw request line and the handler compares its method with the parsed one ({@link #rawMethod}). Nothing is
 * copied: the reader keeps a reference to an array Helidon allocated anyway.
 *
 * <pre>
 *   socket ──> KeepingReader (last readBytes kept) ──> Helidon's Http1Connection ──prologue──> receiveListener
 *                                                                                     └─> RAW_METHOD (this thread)
 *   ProxyHandler: rawMethod() ≠ prologue().method() ──> 501
 * </pre>
 *
 * <p>Each connection's writer is a {@link HeadAnswers}: the receive listener tells it each request line's method, and
 * it drops the content of every answer to {@code HEAD}, whoever writes it. A request line over its limit, which Helidon
 * refuses unread, keeps its start ({@link OverlongLine}), so that its refusal names the API and, to {@code HEAD}, carries
 * no content either.
 *
 * <p>Thread-safe: a connection's context and reader are used by its own thread only; the method is a thread-local
 * of the thread that reads the request and then runs its handler (HTTP/1 routing is synchronous on it).
 */
public final class RequestLineKeeper implements ServerConnectionSelector {
    private static final ThreadLocal<String> RAW_METHOD = new ThreadLocal<>();
    /** The connection this thread serves (HTTP/1: one thread a connection, from its selection to its end). */
    private static final ThreadLocal<ConnectionContext> PEER = new ThreadLocal<>();
    /** Set on the thread whose read of a connection found the client's stream ended (or failed). */
    private static final ThreadLocal<Boolean> STREAM_ENDED = new ThreadLocal<>();

    private final ServerConnectionSelector http1;
    private final LongSupplier maxBodyBytes;
    private final @Nullable BodyBudget budget;

    /**
     * Wraps {@code http1}, Helidon's HTTP/1 selector built from the listener's HTTP/1 config; a chunk of a request
     * body announced longer than {@code maxBodyBytes} (the limit in force) is refused at its size line.
     */
    public RequestLineKeeper(ServerConnectionSelector http1, LongSupplier maxBodyBytes) {
        this(http1, maxBodyBytes, null);
    }

    /**
     * As {@link #RequestLineKeeper(ServerConnectionSelector, LongSupplier)}, and a chunk Helidon gathers whole is
     * reserved in {@code budget} while it is gathered: one the budget has no room for is refused at its size line.
     */
    public RequestLineKeeper(ServerConnectionSelector http1, LongSupplier maxBodyBytes, @Nullable BodyBudget budget) {
        this.http1 = requireNonNull(http1, "http1");
        this.maxBodyBytes = requireNonNull(maxBodyBytes, "maxBodyBytes");
        this.budget = budget;
    }

    @Override
    public int bytesToIdentifyConnection() {
        return http1.bytesToIdentifyConnection();
    }

    @Override
    public Support supports(io.helidon.common.buffers.BufferData data) {
        return http1.supports(data);
    }

    @Override
    public Set<String> supportedApplicationProtocols() {
        return http1.supportedApplicationProtocols();
    }

    @Override
    public ServerConnection connection(ConnectionContext ctx) {
        // The connection is served on this thread from now on: a request its parser refuses is answered here too,
        // by a direct handler that is given no connection (ParseRefusal reads the peer from here).
        KeepingContext keeping = new KeepingContext(ctx, maxBodyBytes, budget);
        PEER.set(keeping);
        return http1.connection(keeping);
    }

    /**
     * The client listener's one receive listener: {@code deadline}'s, which also hands the request line over (Helidon
     * 4.5 drops the prologue and headers calls of a list of several receive listeners, so one does both).
     */
    public static Http1ConnectionListener receiveListener(HeaderDeadline deadline) {
        requireNonNull(deadline, "deadline");
        return new Http1ConnectionListener() {
            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                deadline.prologue(ctx, prologue);
                prologueRead(ctx, prologue);
            }

            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                deadline.headers(ctx, headers);
            }
        };
    }

    /**
     * Whether a read of a connection on this thread found the client's stream at its end (a FIN, a TLS close_notify)
     * or failed (a reset): what Helidon 4.5 reports as an internal error when it happens inside a request's fields.
     */
    static boolean clientStreamEnded() {
        return Boolean.TRUE.equals(STREAM_ENDED.get());
    }

    /** The address of the client whose connection this thread serves; null on a thread that serves none. */
    static @Nullable String clientAddress() {
        ConnectionContext ctx = PEER.get();
        return ctx == null ? null : ClientAddress.of(ctx.remotePeer());
    }

    /**
     * Helidon read the request line of {@code ctx} on this thread; remembers its method as sent, and whether its answer
     * may carry content (not to HEAD: {@link HeadAnswers}).
     */
    static void prologueRead(ConnectionContext ctx, HttpPrologue prologue) {
        if (ctx instanceof KeepingContext keeping) {
            keeping.writer.answering(prologue.method() == Method.HEAD);
        }
        if (ctx.dataReader() instanceof KeepingReader reader) {
            byte[] line = reader.lastRead();
            int space = 0;
            while (space < line.length && line[space] != ' ') {
                space++;
            }
            RAW_METHOD.set(new String(line, 0, space, StandardCharsets.ISO_8859_1));
        } else {
            RAW_METHOD.remove();
        }
    }

    /**
     * The answer this thread is about to write for its connection answers a {@code HEAD} request whose line Helidon's
     * parser refused (so no receive listener heard of it): its content is dropped ({@link HeadAnswers}).
     */
    static void answeringHead() {
        if (PEER.get() instanceof KeepingContext keeping) {
            keeping.writer.answering(true);
        }
    }

    /** The method of the request this thread runs, as the client sent it; empty when not known (another listener). */
    static Optional<String> rawMethod() {
        return Optional.ofNullable(RAW_METHOD.get());
    }

    /** A connection's context whose reader keeps its last read; everything else is Helidon's. */
    private static final class KeepingContext implements ConnectionContext {
        private final ConnectionContext delegate;
        private final KeepingReader reader;
        private final HeadAnswers writer;

        KeepingContext(ConnectionContext delegate, LongSupplier maxBodyBytes, @Nullable BodyBudget budget) {
            this.delegate = delegate;
            this.reader = KeepingReader.over(delegate, maxBodyBytes, budget);
            this.writer = new HeadAnswers(delegate.dataWriter());
        }

        @Override
        public ListenerContext listenerContext() {
            return delegate.listenerContext();
        }

        @Override
        public ExecutorService executor() {
            return delegate.executor();
        }

        @Override
        public DataWriter dataWriter() {
            return writer;
        }

        @Override
        public DataReader dataReader() {
            return reader;
        }

        @Override
        public Router router() {
            return delegate.router();
        }

        @Override
        public Optional<ProxyProtocolData> proxyProtocolData() {
            return delegate.proxyProtocolData();
        }

        @Override
        public HelidonSocket serverSocket() {
            return delegate.serverSocket();
        }

        @Override
        public PeerInfo remotePeer() {
            return delegate.remotePeer();
        }

        @Override
        public PeerInfo localPeer() {
            return delegate.localPeer();
        }

        @Override
        public boolean isSecure() {
            return delegate.isSecure();
        }

        @Override
        public String socketId() {
            return delegate.socketId();
        }

        @Override
        public String childSocketId() {
            return delegate.childSocketId();
        }
    }

    /** A connection's bytes: first those Helidon read to choose the protocol, then each read of the socket. */
    private static final class SocketBytes implements Supplier<byte @Nullable []> {
        private final HelidonSocket socket;
        private byte @Nullable [] held;
        private boolean ended;

        SocketBytes(HelidonSocket socket, byte @Nullable [] held) {
            this.socket = socket;
            this.held = held;
        }

        /**
         * Gives no more bytes: each later read finds the connection at its end at once (Helidon's reader then throws),
         * so nothing waits on the rest of a request the gateway refused, such as the stream's close reading the rest
         * of a chunked body for the next request.
         */
        void end() {
            ended = true;
        }

        @Override
        public byte @Nullable [] get() {
            if (ended) {
                return null;
            }
            byte[] first = held;
            if (first != null) {
                held = null;
                return first;
            }
            byte[] read;
            try {
                read = socket.get();
            } catch (UncheckedIOException e) {
                STREAM_ENDED.set(Boolean.TRUE);
                // As Helidon's own reader maps a failed socket read.
                throw new ServerConnectionException("Failed to get data from socket", e);
            }
            if (read == null) {
                STREAM_ENDED.set(Boolean.TRUE);
            }
            return read;
        }
    }

    /**
     * Helidon's reader of a connection's bytes, remembering the array its last {@code readBytes} returned. It reads
     * the socket as Helidon's own reader does, after the bytes Helidon read to choose the protocol.
     *
     * <p>It also bounds what a chunked request body makes Helidon hold: Helidon 4.5 reads each chunk with one
     * {@code readBuffer} of the chunk's announced size, which gathers the whole chunk from the socket before the
     * handler sees a byte of it, so a chunk announced as 2 GiB would be held whole, past {@code max_body_bytes} and the
     * body budget, for as long as the client takes to send it. Helidon's other {@code readBuffer} (a
     * {@code Content-Length} body) never asks for more than is already held; a request for more than that and more
     * than the body limit in force can only be such a chunk, and is refused ({@link ChunkOverLimit}: 413) before any of
     * it is read; the connection's bytes end there, so that nothing reads the refused chunk's data as more of the
     * body or as a next request. A line Helidon reads without a limit (a chunk size line) is looked for within
     * {@link #UNENDED_LINE} bytes.
     */
    private static final class KeepingReader extends DataReader {
        /** The longest line looked for where Helidon sets no limit: a chunk size line is a few bytes. */
        static final int UNENDED_LINE = 8 * 1024;
        /** How much of a line over its limit is kept: enough for a method and an API path. */
        static final int KEPT_START = 256;

        private final SocketBytes bytes;
        private final LongSupplier maxBodyBytes;
        private final @Nullable BodyBudget budget;
        private byte[] lastRead = new byte[0];

        // DataReader's constructor is deprecated for removal in favour of DataReader.create, which cannot be
        // subclassed; the class itself stays public and open in Helidon 4.5.
        @SuppressWarnings({"removal", "NullAway"}) // Helidon's reader takes a supplier's null as the end of the bytes
        private KeepingReader(SocketBytes bytes, LongSupplier maxBodyBytes, @Nullable BodyBudget budget) {
            super(bytes);
            this.bytes = bytes;
            this.maxBodyBytes = maxBodyBytes;
            this.budget = budget;
        }

        /** A reader of {@code ctx}'s socket that first gives what Helidon's reader already holds. */
        static KeepingReader over(ConnectionContext ctx, LongSupplier maxBodyBytes, @Nullable BodyBudget budget) {
            DataReader helidons = ctx.dataReader();
            int held = helidons.available();
            return new KeepingReader(
                    new SocketBytes(ctx.serverSocket(), held > 0 ? helidons.readBytes(held) : null),
                    maxBodyBytes,
                    budget);
        }

        @Override
        public byte[] readBytes(int len) {
            byte[] read = super.readBytes(len);
            lastRead = read;
            return read;
        }

        /**
         * Helidon's {@code readLine} (a chunk size line, the line that ends a chunked body) looks for the line's end
         * with no limit, so a line that never ends would be held for as long as it comes: it is looked for within
         * {@link #UNENDED_LINE} bytes, and a longer one read as that many (it then fails as a chunk size: 400).
         * Every other caller gives its own limit.
         */
        @Override
        public int findNewLine(int max) throws IncorrectNewLineException {
            int limit = max == Integer.MAX_VALUE ? UNENDED_LINE : max;
            int found = super.findNewLine(limit);
            if (found == limit && available() > 0) {
                // A line over its limit, refused unread: its start is kept, so that a request line's refusal (414)
                // can name the API its target lies under.
                byte[] start = new byte[Math.min(available(), Math.min(limit, KEPT_START))];
                getBuffer(start.length).read(start);
                OverlongLine.keep(start);
            }
            return found;
        }

        @Override
        public BufferData readBuffer(int length) {
            if (length <= available()) {
                return super.readBuffer(length);
            }
            long limit = maxBodyBytes.getAsLong();
            if (length > limit) {
                // The connection cannot carry another request: what follows is the refused chunk's data.
                bytes.end();
                throw new ChunkOverLimit(length, limit);
            }
            if (budget == null) {
                return super.readBuffer(length);
            }
            // Gathered whole before the body's reader sees a byte of it, so counted while it is: many connections
            // each sending a chunk just under the limit would otherwise hold what the budget exists to bound. Given
            // back once gathered; the body's reader then reserves its own copy.
            if (!budget.tryReserve(length)) {
                bytes.end();
                throw new ChunkOverBudget(length);
            }
            try {
                return super.readBuffer(length);
            } finally {
                budget.release(length);
            }
        }

        byte[] lastRead() {
            return lastRead;
        }
    }
}
