package grid.gateway.app.forward;

import java.io.IOException;

/**
 * A write to a client failed because the send timeout closed its connection: the client took no byte of its answer
 * for {@code server.send_timeout_ms} (docs/design.md §H19). Carried in the cause chain of what the write threw, so the
 * access log can tell a client the gateway cut from one that left ({@link #in}).
 */
public final class SendTimedOut extends IOException {
    private static final long serialVersionUID = 1L;
    /** The most causes followed, as {@link Causes} does: a chain with a cycle ends. */
    private static final int MAX_DEPTH = 16;

    /** The failure of the write the cut ended ({@code cause}: what the closed socket threw). */
    public SendTimedOut(Throwable cause) {
        super("the client took no byte of its answer for send_timeout_ms: its connection was closed", cause);
    }

    /** Whether {@code failure} or one of its causes is a {@code SendTimedOut}. */
    public static boolean in(Throwable failure) {
        Throwable cause = failure;
        for (int depth = 0; cause != null && depth <= MAX_DEPTH; depth++) {
            if (cause instanceof SendTimedOut) {
                return true;
            }
            cause = cause.getCause();
        }
        return false;
    }
}
