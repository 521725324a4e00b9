package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The simulated grid: its clusters' service models, and the routing core's {@link Grid} describing the same
 * clusters in the same order (index {@code i} of one is index {@code i} of the other).
 *
 * <p>Thread-safe (immutable).
 *
 * @param clusters the clusters' service models
 */
public record SimGrid(List<ClusterModel> clusters) {
    public SimGrid {
        clusters = List.copyOf(clusters);
        if (clusters.size() < 2) {
            throw new IllegalArgumentException("a grid to route over needs two clusters or more");
        }
    }

    /**
     * The grid of the report: three sites of two clusters each, of three sizes (prefill 2k, 3k and 4k tokens a
     * second, with slots in proportion and 24k tokens of prefix cache a slot), every sequence decoding 40 tokens a
     * second.
     */
    public static SimGrid standard() {
        return new SimGrid(List.of(
                new ClusterModel("east", "east-a", 12, 3_000, 40, 288_000),
                new ClusterModel("east", "east-b", 12, 3_000, 40, 288_000),
                new ClusterModel("west", "west-a", 16, 4_000, 40, 384_000),
                new ClusterModel("west", "west-b", 8, 2_000, 40, 192_000),
                new ClusterModel("north", "north-a", 12, 3_000, 40, 288_000),
                new ClusterModel("north", "north-b", 8, 2_000, 40, 192_000)));
    }

    /** The routing core's view: every cluster serves {@link TraceGenerator#MODEL}; the replica sits at site 0's. */
    public Grid routingGrid() {
        List<BackendCluster> backends = clusters.stream()
                .map(c -> new BackendCluster(
                        new ClusterId(new SiteName(c.site()), c.name()),
                        URI.create("http://" + c.name() + ".invalid"),
                        Set.of(TraceGenerator.MODEL),
                        Optional.empty(),
                        OptionalInt.empty(),
                        false))
                .toList();
        return Grid.of(new SiteName(clusters.getFirst().site()), backends);
    }

    /**
     * The request rate the grid sustains on {@code trace} when every request's prefill is only the tokens no earlier
     * request shared (an infinite cache and perfect routing, the most any policy can save): the sum over clusters of
     * the smaller of the prefill bound and the slot bound ({@link ClusterModel#capacity}).
     */
    public double capacity(Trace trace) {
        requireNonNull(trace, "trace");
        return clusters.stream()
                .mapToDouble(c -> c.capacity(trace.meanIdealUncachedTokens(), trace.meanOutputTokens()))
                .sum();
    }
}
