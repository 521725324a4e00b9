package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.keyer.PromptKeys;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.select.Decision;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What {@link SiteRouter#route(PromptKeys)} would do with a request now, and why, computed by the same code without
 * changing anything (docs/design.md §6): what {@code /route/explain} answers.
 *
 * <p>Thread-safe (immutable).
 *
 * @param keys what the keyer read: the model, the keys or the reason there are none
 * @param clusters every cluster that serves the model (every cluster when the body names none), in config order,
 *     admitted or not
 * @param route the outcome: forward (with the chosen cluster, affinity outcome and run), unknown model, or none
 *     admitted
 * @param decision the selector's reasons; empty unless the route is a forward
 */
public record Explanation(PromptKeys keys, List<ClusterCheck> clusters, Route route, Optional<Decision> decision) {
    public Explanation {
        requireNonNull(keys, "keys");
        clusters = List.copyOf(clusters);
        requireNonNull(route, "route");
        requireNonNull(decision, "decision");
    }

    /**
     * One serving cluster as admission and the prefix memory see it.
     *
     * @param cluster the cluster
     * @param refusal why it admits no request; empty when it is a candidate
     * @param windowedDepth its windowed worst queue depth; empty when unmeasured
     * @param run how many of the request's leading blocks it holds (0 without keys)
     * @param retentionSeconds how long it keeps a prefix nobody reuses, as the memory knows it
     *     ({@code PrefixMemory.retentionNanos}), seconds; empty while there is no sign that it evicts anything. Among
     *     candidates nearly as soon, a miss goes where this is longest ({@code load.order_by: expected_wait}).
     */
    public record ClusterCheck(
            BackendCluster cluster,
            Optional<Admission.Refusal> refusal,
            OptionalDouble windowedDepth,
            int run,
            OptionalDouble retentionSeconds) {
        public ClusterCheck {
            requireNonNull(cluster, "cluster");
            requireNonNull(refusal, "refusal");
            requireNonNull(windowedDepth, "windowedDepth");
            requireNonNull(retentionSeconds, "retentionSeconds");
        }
    }
}
