package grid.gateway.routing.load;

/**
 * One queue-depth reading of a backend cluster: the sum of its {@code queue_metric} samples in one scrape (docs/design.md §6).
 *
 * <p>Thread-safe (immutable). Invariant: the depth is a count, finite and not negative, as
 * {@link PrometheusQueueParser#sumOfCounts} guarantees.
 *
 * @param atNanos when the scrape was taken, a {@link grid.gateway.routing.time.MonotonicClock} reading; meaningful
 *     only as a difference from another reading
 * @param depth the queued requests summed over the cluster's engines and models
 */
public record QueueSample(long atNanos, double depth) {
    /** Refuses a NaN or infinite depth. */
    public QueueSample {
        if (!Double.isFinite(depth)) {
            throw new IllegalArgumentException("depth: " + depth + " (expected: a finite number)");
        }
    }
}
