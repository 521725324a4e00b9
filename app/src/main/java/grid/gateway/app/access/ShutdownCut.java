package grid.gateway.app.access;

/**
 * Whether a graceful shutdown cut a request at its grace deadline ({@code server.shutdown_grace_ms}): one per request,
 * on the request's thread while it is handled ({@link #CURRENT}), marked by the shutdown before it ends the request,
 * read by the access log, so that the request's line ends {@code shutdown_cut} whatever the cut made its relay throw
 * (a client write or an upstream read ended under it).
 *
 * <p>Thread-safe: marked by the shutdown's thread, read by the request's.
 */
public final class ShutdownCut {
    /** The mark of the request the current thread handles, set by the in-flight filter around it. */
    public static final ThreadLocal<ShutdownCut> CURRENT = new ThreadLocal<>();

    private volatile boolean cut;

    /** Not cut. */
    public ShutdownCut() {}

    /** The shutdown is cutting the request. */
    public void mark() {
        cut = true;
    }

    /** Whether the shutdown cut the request the current thread handles. */
    public static boolean cutHere() {
        ShutdownCut mark = CURRENT.get();
        return mark != null && mark.marked();
    }

    /** Whether the shutdown cut the request. */
    public boolean marked() {
        return cut;
    }
}
