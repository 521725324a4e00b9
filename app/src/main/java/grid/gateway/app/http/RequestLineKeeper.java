package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

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
import io.helidon.webserver.http1.Http1ConnectionListener;
import io.helidon.webserver.spi.ServerConnection;
import io.helidon.webserver.spi.ServerConnectionSelector;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.LongSupplier;
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
    /** The request line the client listener's receive listener heard last on this thread, until its head is read. */
    private static final ThreadLocal<HttpPrologue> PROLOGUE = new ThreadLocal<>();
    /** The connection this thread serves (HTTP/1: one thread a connection, from its selection to its end). */
    private static final ThreadLocal<ConnectionContext> PEER = new ThreadLocal<>();
    /** Set on the thread whose read of a connection found the client's stream ended (or failed). */
    private static final ThreadLocal<Boolean> STREAM_ENDED = new ThreadLocal<>();
    /** The reader of the connection this thread serves. */
    private static final ThreadLocal<KeepingReader> READER = new ThreadLocal<>();

    private final ServerConnectionSelector http1;
    private final LongSupplier maxBodyBytes;
    private final @Nullable BodyBudget budget;
    private final boolean acceptsHttp10;

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
        this(http1, maxBodyBytes, budget, false);
    }

    private RequestLineKeeper(
            ServerConnectionSelector http1,
            LongSupplier maxBodyBytes,
            @Nullable BodyBudget budget,
            boolean acceptsHttp10) {
        this.http1 = requireNonNull(http1, "http1");
        this.maxBodyBytes = requireNonNull(maxBodyBytes, "maxBodyBytes");
        this.budget = budget;
        this.acceptsHttp10 = acceptsHttp10;
    }

    /**
     * The admin listener's: as {@link #RequestLineKeeper(ServerConnectionSelector, LongSupplier, BodyBudget)}, and
     * HTTP/1.0 requests are served ({@link AdminHttp10}); {@code http1}'s config must check the {@code Host} only
     * partly ({@code validateRequestHostHeader(false)}) and hear {@link #adminReceiveListener}, which checks the rest.
     */
    public static RequestLineKeeper admin(
            ServerConnectionSelector http1, LongSupplier maxBodyBytes, @Nullable BodyBudget budget) {
        return new RequestLineKeeper(http1, maxBodyBytes, budget, true);
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
        KeepingContext keeping = new KeepingContext(ctx, maxBodyBytes, budget, acceptsHttp10);
        PEER.set(keeping);
        READER.set(keeping.reader);
        return http1.connection(keeping);
    }

    /**
     * The client listener's one receive listener: {@code deadline}'s, which also hands the request line over (Helidon
     * 4.5 drops the prologue and headers calls of a list of several receive listeners, so one does both), and checks
     * each head's {@code Host} ({@link HostField}, as the admin listener does); {@code http1}'s config must leave
     * Helidon's full check of it off ({@code validateRequestHostHeader(false)}).
     */
    public static Http1ConnectionListener receiveListener(HeaderDeadline deadline) {
        requireNonNull(deadline, "deadline");
        return new Http1ConnectionListener() {
            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                deadline.prologue(ctx, prologue);
                prologueRead(ctx, prologue);
                PROLOGUE.set(prologue);
            }

            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                headersRead(ctx);
                deadline.headers(ctx, headers);
                HttpPrologue prologue = PROLOGUE.get();
                PROLOGUE.remove();
                HostField.check(false, headers, prologue);
            }
        };
    }

    /**
     * The admin listener's one receive listener: {@code deadline}'s, which also tells the connection's reader where a
     * head was read whole ({@link #unparsedMethod}), and checks each head's {@code Host} and, for HTTP/1.0, its framing
     * ({@link AdminHttp10#check}).
     */
    public static Http1ConnectionListener adminReceiveListener(HeaderDeadline deadline) {
        requireNonNull(deadline, "deadline");
        return new Http1ConnectionListener() {
            @Override
            public void prologue(ConnectionContext ctx, HttpPrologue prologue) {
                if (ctx.dataReader() instanceof KeepingReader reader) {
                    reader.parsed(true);
                }
                answering(ctx, prologue);
                deadline.prologue(ctx, prologue);
            }

            @Override
            public void headers(ConnectionContext ctx, Headers headers) {
                headersRead(ctx);
                deadline.headers(ctx, headers);
                AdminHttp10.check(ctx.dataReader() instanceof KeepingReader reader && reader.http10(), headers);
            }
        };
    }

    /**
     * Whether the request this thread runs named HTTP/1.0 in its request line (served on the admin listener only,
     * {@link AdminHttp10}): its answer must close the connection.
     */
    public static boolean http10() {
        KeepingReader reader = READER.get();
        return reader != null && reader.http10();
    }

    /** Helidon read the headers of {@code ctx} whole on this thread. */
    private static void headersRead(ConnectionContext ctx) {
        if (ctx.dataReader() instanceof KeepingReader reader) {
            reader.parsed(false);
        }
    }

    /**
     * The method of a request line Helidon 4.5's parser failed on with an exception of its own on this thread, when
     * that is what happened: the last line its reader took is not one a parsed head accounts for, no head's fields
     * were being read, and the line's method (up to its first space) is not a token (RFC 9110 §5.6.2), which Helidon's
     * {@code Method.create} throws on. Empty for any other failure: one the client's bytes do not explain.
     */
    static Optional<String> unparsedMethod() {
        KeepingReader reader = READER.get();
        return reader == null ? Optional.empty() : reader.unparsedMethod();
    }

    /** A read of the connection this thread serves found the client's stream ended or failed. */
    static void streamEnded() {
        STREAM_ENDED.set(Boolean.TRUE);
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
        answering(ctx, prologue);
        if (ctx.dataReader() instanceof KeepingReader reader) {
            reader.parsed(true);
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

    /** Tells {@code ctx}'s writer whether the answer it writes next answers a {@code HEAD} request. */
    private static void answering(ConnectionContext ctx, HttpPrologue prologue) {
        if (ctx instanceof KeepingContext keeping) {
            keeping.writer.answering(prologue.method() == Method.HEAD);
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

        KeepingContext(
                ConnectionContext delegate,
                LongSupplier maxBodyBytes,
                @Nullable BodyBudget budget,
                boolean acceptsHttp10) {
            this.delegate = delegate;
            this.reader = KeepingReader.over(delegate, maxBodyBytes, budget, acceptsHttp10);
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
}
