package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

/**
 * Where an unpinned request goes (docs/design.md §6), or why it goes nowhere: the gateway maps {@link UnknownModel} to 404
 * and {@link NoneAdmitted} to 503 with Retry-After.
 *
 * <p>Thread-safe (immutable).
 */
public sealed interface Route {
    /**
     * Forward as decided.
     *
     * @param decision the cluster, the affinity outcome and the keys to learn from
     */
    record Forward(RouteDecision decision) implements Route {
        public Forward {
            requireNonNull(decision, "decision");
        }
    }

    /** No cluster in the grid serves the model. */
    record UnknownModel(String model) implements Route {
        public UnknownModel {
            requireNonNull(model, "model");
        }
    }

    /** Clusters serve the request, but none admits a new one. */
    record NoneAdmitted() implements Route {}
}
