package grid.gateway.routing.load;

/**
 * A backend cluster's batch at its latest scrape: the sequences running ({@code vllm:num_requests_running}) and the
 * most ever seen running, taken as its slots (a waiting line forms only when they are full).
 *
 * <p>Thread-safe (immutable).
 *
 * @param running sequences running at the latest scrape
 * @param slots the most sequences seen running at once, at least 1
 */
public record Occupancy(double running, double slots) {
    /** Slots free at the latest scrape. */
    public double free() {
        return Math.max(0, slots - running);
    }
}
