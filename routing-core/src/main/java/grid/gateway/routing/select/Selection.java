package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import java.util.Optional;

/**
 * The result of selecting a cluster for a request (SPEC §6). Expected failures are values that the gateway maps to
 * its answers in one place: {@link NoModel} to 404, {@link NoneAdmitted} to 503 with Retry-After.
 *
 * <p>Thread-safe (immutable).
 */
public sealed interface Selection {
    /**
     * A cluster was chosen.
     *
     * @param cluster the cluster to forward to
     * @param outcome how affinity decided; empty when there was one candidate (which counts nothing)
     * @param run the chosen cluster's run: leading blocks it holds (for predicted cached tokens)
     */
    record Chosen(BackendCluster cluster, Optional<AffinityOutcome> outcome, int run) implements Selection {
        public Chosen {
            requireNonNull(cluster, "cluster");
            requireNonNull(outcome, "outcome");
        }
    }

    /** No cluster in the grid serves the model. */
    record NoModel(String model) implements Selection {}

    /** Clusters serve the model, but none admits a new request. */
    record NoneAdmitted() implements Selection {}
}
