package grid.gateway.routing.select;

import java.util.Locale;

/**
 * How prefix affinity decided a request with two or more candidates: the label of
 * {@code grid_route_prefix_affinity_total{outcome}} (docs/design.md §10).
 *
 * <p>Stateless and thread-safe.
 */
public enum AffinityOutcome {
    /** The least-queued sticky cluster was taken. */
    HIT,
    /** The sticky set reopened because load outweighed the match. */
    LOAD,
    /** No run was long enough to be sticky: first by load. */
    MISS,
    /** One of the 2% of requests that skip affinity: first by load. */
    EXPLORE,
    /** The request had no keys: first by load. */
    UNKEYED;

    /** The metric label value. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
