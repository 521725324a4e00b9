package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import java.util.Optional;

/**
 * The cluster chosen for a request among admitted candidates (docs/design.md §6). The selector is only asked when there is at
 * least one candidate, so it always chooses; an unknown model and no admitted candidate are {@code Route} values.
 *
 * <p>Thread-safe (immutable).
 *
 * @param cluster the cluster to forward to
 * @param outcome how affinity decided; empty when there was one candidate (which counts nothing)
 * @param run the chosen cluster's run: leading blocks it holds (for predicted cached tokens)
 */
public record Selection(BackendCluster cluster, Optional<AffinityOutcome> outcome, int run) {
    public Selection {
        requireNonNull(cluster, "cluster");
        requireNonNull(outcome, "outcome");
    }
}
