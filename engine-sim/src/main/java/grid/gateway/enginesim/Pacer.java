package grid.gateway.enginesim;

import java.time.Duration;

/**
 * Where the simulator spends simulated time: queue-free prefill, decode between tokens, first-byte delays and pauses
 * between events all go through one {@code Pacer}, so a test can run without wall-clock time.
 *
 * <p>Implementations are thread-safe; many requests pause at once.
 */
@FunctionalInterface
public interface Pacer {
    /**
     * Spends {@code duration} of simulated time; returns at once for zero or negative durations.
     *
     * @throws InterruptedException if the thread is interrupted, for example when the simulator closes
     */
    void pause(Duration duration) throws InterruptedException;

    /** The real pacer: {@link Thread#sleep(Duration)}. */
    static Pacer sleeping() {
        return SleepingPacer.INSTANCE;
    }

    /** The instant pacer: every pause returns at once, for fast tests. */
    static Pacer instant() {
        return InstantPacer.INSTANCE;
    }
}
