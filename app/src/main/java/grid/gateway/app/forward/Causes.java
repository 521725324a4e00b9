package grid.gateway.app.forward;

/**
 * The innermost cause of a failure, as a log line names it: Helidon wraps socket errors in {@code UncheckedIOException}
 * and its own exceptions, so the outermost says little. The walk is bounded, so a cause chain with a cycle ends.
 */
public final class Causes {
    /** The most causes followed. */
    private static final int MAX_DEPTH = 16;

    private Causes() {}

    /** The innermost cause of {@code failure} within {@link #MAX_DEPTH} steps ({@code failure} when it has none). */
    public static Throwable innermost(Throwable failure) {
        Throwable root = failure;
        for (int depth = 0; root.getCause() != null && depth < MAX_DEPTH; depth++) {
            root = root.getCause();
        }
        return root;
    }

    /** The innermost cause's class and message, for a log line. */
    public static String describe(Throwable failure) {
        Throwable root = innermost(failure);
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
