package grid.gateway.app.tls;

/**
 * Runs the ways back of the steps of a change that took effect, last step first, each whatever the one before it did:
 * a change that fails part-way leaves nothing of itself in force.
 *
 * <p>Stateless and thread-safe.
 */
public final class Undo {
    private Undo() {}

    /**
     * Runs each of {@code backs} in order; a failure of one is kept and the rest still run.
     *
     * @throws RuntimeException the first failure (later ones suppressed in it), once every one has run
     */
    public static void all(Runnable... backs) {
        Throwable first = null;
        for (Runnable back : backs) {
            try {
                back.run();
            } catch (RuntimeException | Error e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (first instanceof Error error) {
            throw error;
        }
    }

    /** Runs each of {@code backs} after {@code failure}: their own failures are suppressed in it. */
    public static void after(Throwable failure, Runnable... backs) {
        try {
            all(backs);
        } catch (RuntimeException | Error e) {
            failure.addSuppressed(e);
        }
    }
}
