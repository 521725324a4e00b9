package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

/**
 * Where an unpinned request goes (docs/design.md §6), or why it goes nowhere: the gateway maps {@link UnknownModel} to 404
 * and {@link NoneAdmitted} to 503 with Retry-After.
 *
 * <p>Thread-safe (immutable).
 */
public sealed interface Route {
    /** The candidates the decision chose among: the admitted clusters serving the request's model (0: none). */
    int candidates();

    /**
     * Forward as decided.
     *
     * @param decision the cluster, the affinity outcome and the keys to learn from
     * @param candidates how many candidates it was chosen among (at least 1)
     */
    record Forward(RouteDecision decision, int candidates) implements Route {
        public Forward {
            requireNonNull(decision, "decision");
            if (candidates < 1) {
                throw new IllegalArgumentException("a forward is chosen among at least one candidate: " + candidates);
            }
        }
    }

    /** No cluster in the grid serves the model. */
    record UnknownModel(String model) implements Route {
        public UnknownModel {
            requireNonNull(model, "model");
        }

        @Override
        public int candidates() {
            return 0;
        }
    }

    /** Clusters serve the request, but none admits a new one. */
    record NoneAdmitted() implements Route {
        @Override
        public int candidates() {
            return 0;
        }
    }
}
