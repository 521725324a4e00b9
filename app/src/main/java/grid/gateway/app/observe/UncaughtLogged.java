package grid.gateway.app.observe;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Logs an exception no code caught, in any thread, as one SEVERE line of the gateway's log. Without it the JVM prints
 * the trace to stderr itself: around the log's queue (a stalled stderr then blocks the dying thread) and around its
 * redaction and escaping ({@link QueuedLogHandler}), so a message quoting a stored id or a line break would be written
 * as thrown.
 *
 * <p>Thread-safe: stateless.
 */
public final class UncaughtLogged implements Thread.UncaughtExceptionHandler {
    private static final Logger LOG = Logger.getLogger(UncaughtLogged.class.getName());

    /** Makes this the handler of every thread that has none of its own. */
    public static void install() {
        Thread.setDefaultUncaughtExceptionHandler(new UncaughtLogged());
    }

    @Override
    public void uncaughtException(Thread thread, Throwable thrown) {
        LOG.log(Level.SEVERE, "uncaught in thread \"" + thread.getName() + "\"", thrown);
    }
}
