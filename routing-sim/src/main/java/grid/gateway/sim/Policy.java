package grid.gateway.sim;

import grid.gateway.routing.load.EngineSample;
import java.util.List;

/**
 * A way to pick a cluster for each request; the simulator replays the same trace through each.
 *
 * <p>Implementations are not thread-safe; one per run.
 */
interface Policy {
    /** The name in reports. */
    String name();

    /** Picks the cluster for {@code flight} at the current simulated time; sets its cluster and outcome. */
    void choose(Flight flight, List<SimCluster> clusters);

    /** A scrape of {@code cluster}'s engines read {@code sample} (its waiting line and vLLM's series). */
    default void scraped(int cluster, EngineSample sample) {}

    /** The flight's first token arrived: the answer's headers are in. */
    default void firstToken(Flight flight) {}
}
