package grid.gateway.app;

import java.time.Duration;
import java.util.function.IntSupplier;
import java.util.logging.Logger;

/**
 * Stops a listener within deadlines: its stop runs on a thread of its own; when it has not returned within the grace,
 * what is left is cut; when it has still not returned {@link #AFTER_CUT} later (a connection thread that ignores its
 * interrupt, a stop that never ends), the shutdown logs a WARNING and goes on without it, so that the process still
 * exits within the orchestrator's grace period.
 *
 * <p>{@code AFTER_CUT} is longer than the grace Helidon adds after the gateway's own (5 s, {@link Listeners}): a
 * stop that ends as Helidon ends it is waited for.
 *
 * <p>Stateless and thread-safe.
 */
final class ListenerStop {
    /** How long a stop is waited for after the cut, before the shutdown goes on without it. */
    static final Duration AFTER_CUT = Duration.ofSeconds(10);

    private static final Logger LOG = Logger.getLogger("grid.gateway.shutdown");

    private ListenerStop() {}

    /**
     * What a stop came to.
     *
     * @param cut what {@code cut} returned (requests cut), 0 when the stop returned within the grace
     * @param returned whether the stop returned; false: it was left running
     */
    record Outcome(int cut, boolean returned) {}

    /**
     * Runs {@code stop} and waits for it at most {@code grace}, then runs {@code cut} and waits at most
     * {@code afterCut} more. Interrupted: cuts at once and returns without waiting further (the interrupt kept).
     *
     * @param listener the listener's name, for the thread and the log
     */
    static Outcome stop(String listener, Runnable stop, Duration grace, IntSupplier cut, Duration afterCut) {
        // A daemon: a stop left running must not keep the process alive.
        Thread stopper = Thread.ofPlatform()
                .daemon()
                .name("grid-" + listener + "-listener-stop")
                .start(stop);
        boolean cutDone = false;
        int cutCount = 0;
        try {
            if (stopper.join(grace)) {
                return new Outcome(0, true);
            }
            cutDone = true;
            cutCount = cut.getAsInt();
            if (stopper.join(afterCut)) {
                return new Outcome(cutCount, true);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (!cutDone) {
                cutCount = cut.getAsInt();
            }
            return new Outcome(cutCount, !stopper.isAlive());
        }
        LOG.warning(() -> "the " + listener + " listener's stop has not returned; shutting down without it (waited "
                + grace.plus(afterCut).toMillis() + " ms)");
        return new Outcome(cutCount, false);
    }
}
