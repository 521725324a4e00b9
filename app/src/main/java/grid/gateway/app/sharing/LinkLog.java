package grid.gateway.app.sharing;

import java.lang.System.Logger.Level;

/**
 * What one sharing thread logs of its Redis link: a WARNING when it starts failing, naming the first failure, and an
 * INFO when it works again; nothing in between, so a Redis that stays away costs two lines, not one per attempt or
 * per request ({@code grid_prefix_sharing_*} counts the rest).
 *
 * <p>Not thread-safe: each thread has its own.
 */
final class LinkLog {
    private static final System.Logger LOG = System.getLogger(RedisSharing.class.getName());

    private final String what;
    private boolean failing;

    /** The log of the link that {@code what} names ("reading the stream", "publishing to the stream"). */
    LinkLog(String what) {
        this.what = what;
    }

    /** An attempt failed with {@code cause}; logged when the link worked (or was never tried) until now. */
    void failed(String cause) {
        if (!failing) {
            failing = true;
            LOG.log(
                    Level.WARNING,
                    "prefix sharing: " + what + " failed (" + cause + "); retrying with backoff (100 ms to 5 s),"
                            + " routing goes on with what this replica learns itself");
        }
    }

    /** {@code e} as a failure: its class and message, never a stack. */
    void failed(Throwable e) {
        failed(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    /** An attempt succeeded; logged when the link was failing. */
    void ok() {
        if (failing) {
            failing = false;
            LOG.log(Level.INFO, "prefix sharing: " + what + " works again");
        }
    }
}
