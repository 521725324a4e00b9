package grid.gateway.sim;

import java.util.List;

/**
 * A way to pick a cluster for each request; the simulator replays the same trace through each.
 *
 * <p>Implementations are not thread-safe; one per run.
 */
interface Policy {
    /** The name in reports. */
    String name();

    /**
     * Picks the cluster for {@code flight} at the current simulated time; sets its cluster and outcome (and, for
     * {@code grid_site_route}, its predicted cached tokens).
     */
    void choose(Flight flight, List<SimCluster> clusters);

    /** A scrape of {@code cluster}'s {@code /metrics} found {@code series} (every cluster, every poll interval). */
    default void scraped(int cluster, EngineSeries series) {}

    /**
     * The flight's answer came back with {@code status}: 200 at its first token (a streamed answer's headers), or
     * 429 or 503 at once when the cluster refused it ({@link FailedAnswers}).
     */
    default void answered(Flight flight, int status) {}

    /**
     * The flight's attempt ended: its answer's last token, or its error answer (a 429 or 503 ends at once). The gateway
     * hears the end of every answer it relays ({@code SiteRouter.ended}).
     */
    default void finished(Flight flight) {}
}
