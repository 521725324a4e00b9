package grid.gateway.routing;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.select.AffinityOutcome;

/**
 * Events of the routing core, for metrics and logs outside it (OkHttp's EventListener style): the core has no
 * metrics dependency. Every method has a no-op default.
 *
 * <p>Implementations must be thread-safe and must not block: they run on the request's thread.
 */
public interface RoutingListener {
    /** A listener that ignores everything. */
    RoutingListener NONE = new RoutingListener() {};

    /** Affinity decided a request with two or more candidates. */
    default void affinityDecided(AffinityOutcome outcome, ClusterId cluster, int run) {}

    /** A request naming a stored id was resolved. */
    default void pinned(PinnedOutcome outcome) {}

    /** The prefix memory learned from an answer: confirmed ({@code true}) or dropped keys. */
    default void keysLearned(ClusterId cluster, boolean confirmed, int keys) {}

    /**
     * A scrape of {@code cluster} lacked {@code series} (its exposition name), which an {@code auto} estimate in force
     * needs: that estimate keeps the configured value. Told once per cluster and series while the cluster is in the grid,
     * however often the series comes and goes (the latest scrape's lack is {@code SiteRouter#missingSeries}), on the
     * scraper's thread.
     */
    default void calibrationSeriesMissing(ClusterId cluster, String series) {}
}
