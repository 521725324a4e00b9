package grid.gateway.app.http;

import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import org.jspecify.annotations.Nullable;

/**
 * Remembers what a route handler threw, for {@link ParseRefusal}: Helidon 4.5 answers a handler that threw through
 * its direct handlers as an internal error and passes them no cause, so the WARNING that says the gateway failed could
 * not say how. Registered as the routing's error handler for every {@link Throwable}, it keeps the exception on the
 * thread and answers nothing, so Helidon goes on as without it (a status exception keeps its status) and the direct
 * handler, on the same thread (HTTP/1: one thread a connection), takes it.
 *
 * <p>Thread-safe: the failure is a thread-local of the thread that ran the handler.
 */
public final class HandlerFailure {
    private static final ThreadLocal<Throwable> THROWN = new ThreadLocal<>();

    private HandlerFailure() {}

    /** The routing's error handler: keeps {@code thrown} on this thread and sends nothing. */
    public static void remember(ServerRequest req, ServerResponse res, Throwable thrown) {
        THROWN.set(thrown);
    }

    /** What the last handler on this thread threw, forgotten once taken; null when none threw since the last take. */
    static @Nullable Throwable take() {
        Throwable thrown = THROWN.get();
        THROWN.remove();
        return thrown;
    }
}
