package grid.gateway.routing;

import java.util.Locale;

/**
 * The label of {@code grid_route_pinned_total{outcome}} (docs/design.md §10).
 *
 * <p>Stateless and thread-safe.
 */
public enum PinnedOutcome {
    /** Forwarded to the cluster the tag names. */
    ROUTED,
    /** Answered 404: malformed, untagged, a mac that does not verify, or a cluster no longer in the grid. */
    NOT_FOUND,
    /** Answered 503 with Retry-After: the cluster is in the grid but admits nothing. */
    UNAVAILABLE;

    /** The metric label value. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
