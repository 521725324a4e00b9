package grid.gateway.sim;

import grid.gateway.routing.time.MonotonicClock;

/**
 * Simulated time, in seconds for the simulator and in nanoseconds for the routing core, which reads it through
 * {@link MonotonicClock}. The event loop sets it; nothing here reads a real clock.
 *
 * <p>Not thread-safe; one per run, driven by one event loop.
 */
public final class SimClock implements MonotonicClock {
    private double seconds;

    /** The simulated time in seconds. */
    public double seconds() {
        return seconds;
    }

    /** Moves to {@code at}, which may not lie before the current time. */
    public void advanceTo(double at) {
        if (at < seconds) {
            throw new IllegalArgumentException("time runs forward: " + at + " < " + seconds);
        }
        seconds = at;
    }

    @Override
    public long nanoTime() {
        return Math.round(seconds * 1e9);
    }
}
