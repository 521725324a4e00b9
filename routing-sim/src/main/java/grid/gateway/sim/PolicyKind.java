package grid.gateway.sim;

/**
 * The policies compared (docs/routing-sim.md).
 *
 * <p>Thread-safe (immutable).
 */
public enum PolicyKind {
    /** The real routing core: {@code SiteRouter} with the default {@code prefix_affinity} settings. */
    GRID_SITE_ROUTE("grid_site_route"),
    /** The same scraped windowed worst queue depth and tie-break, without affinity. */
    LEAST_QUEUED("least-queued"),
    /** Clusters in turn. */
    ROUND_ROBIN("round-robin"),
    /** A uniformly random cluster. */
    RANDOM("random"),
    /** Knows every cluster's true cache and queue; picks the least predicted time to first token. */
    ORACLE("oracle");

    private final String label;

    PolicyKind(String label) {
        this.label = label;
    }

    /** The name in reports. */
    public String label() {
        return label;
    }
}
