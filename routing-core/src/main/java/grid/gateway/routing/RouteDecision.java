package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.select.AffinityOutcome;
import java.util.Optional;

/**
 * Where one request goes and what to learn from the answer.
 *
 * <p>Thread-safe (immutable). The keys are redacted from {@link #toString()}.
 *
 * @param cluster the backend cluster to forward to
 * @param outcome how affinity decided; empty for pinned requests, new conversations and single candidates
 * @param run the chosen cluster's run, in blocks (predicted cached tokens are {@code run × 64})
 * @param keys the request's block keys, to confirm on 2xx and drop on 429 or 5xx; empty when pinned
 */
public record RouteDecision(BackendCluster cluster, Optional<AffinityOutcome> outcome, int run, BlockKeys keys) {
    public RouteDecision {
        requireNonNull(cluster, "cluster");
        requireNonNull(outcome, "outcome");
        requireNonNull(keys, "keys");
    }

    /** A decision that teaches the prefix memory nothing: pinned requests and new conversations. */
    public static RouteDecision unkeyed(BackendCluster cluster) {
        return new RouteDecision(cluster, Optional.empty(), 0, BlockKeys.none());
    }

    @Override
    public String toString() {
        return "RouteDecision[cluster=" + cluster.id() + ", outcome="
                + outcome.map(AffinityOutcome::label).orElse("none") + ", run=" + run + ", keys=" + keys.size() + "]";
    }
}
