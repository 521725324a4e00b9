package grid.gateway.app.http;

import io.helidon.http.HeaderNames;
import io.helidon.webserver.ConnectionContext;
import io.helidon.webserver.http.ServerRequest;
import org.jspecify.annotations.Nullable;

/**
 * Tells {@link BoundedBody} how many bytes of a request Helidon has already read from the socket and holds unread,
 * so that a body that has arrived whole is read on the handler's own thread, without a helper thread.
 *
 * <p>Helidon 4.5's request entity stream does not say (its {@code available()} is always 0), but the connection's
 * {@code DataReader} does, and Helidon hands the connection to receive listeners: {@link HeaderDeadline#headers}
 * calls {@link #headersRead} (one listener for both: Helidon 4.5's list of several receive listeners drops their
 * {@code prologue} and {@code headers} calls). It runs on the connection's own virtual thread right after the
 * request headers were read, the thread that then runs the handler (HTTP/1: routing is synchronous on it), so a thread-local carries the connection to {@link #unread}. A request on
 * another thread (HTTP/2) or whose connection does not match has no connection here: it is read on the helper
 * thread. The same connection gives {@link BodyDeadline} its socket, for a body that has not arrived whole.
 *
 * <p>What the reader holds after the headers is this request's body first (then possibly a pipelined request), so
 * {@code unread >= Content-Length} means every read of the body returns from memory.
 */
final class ConnectionBuffer {
    private static final ThreadLocal<ConnectionContext> CONNECTION = new ThreadLocal<>();

    private ConnectionBuffer() {}

    /** The request headers of {@code ctx} were read on this thread, which now runs their request. */
    static void headersRead(ConnectionContext ctx) {
        CONNECTION.set(ctx);
    }

    /** The connection {@code request} arrived on, when this thread read its headers; else {@code null}. */
    static @Nullable ConnectionContext connection(ServerRequest request) {
        ConnectionContext ctx = CONNECTION.get();
        return ctx != null && ctx.childSocketId().equals(request.socketId()) ? ctx : null;
    }

    /**
     * Bytes of {@code request}'s connection {@code ctx} Helidon has read and not handed out yet, or -1 when unknown
     * (no connection, or a first read that would write: {@code Expect: 100-continue}).
     */
    static long unread(@Nullable ConnectionContext ctx, ServerRequest request) {
        if (ctx == null || request.headers().contains(HeaderNames.EXPECT)) {
            return -1;
        }
        return ctx.dataReader().available();
    }
}
