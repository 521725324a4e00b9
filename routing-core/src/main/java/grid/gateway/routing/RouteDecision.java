package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.RunEvidence;
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
 * @param evidence what the memory held at that cluster when routing, for {@code learn_from_usage}
 * @param backlogMark with {@code load.order_by: expected_wait}, the request's place in its cluster's prefill backlog
 *     ({@code PrefillBacklog}), which its first token re-anchors; -1 otherwise
 */
public record RouteDecision(
        BackendCluster cluster,
        Optional<AffinityOutcome> outcome,
        int run,
        BlockKeys keys,
        RunEvidence evidence,
        long backlogMark) {
    public RouteDecision {
        requireNonNull(cluster, "cluster");
        requireNonNull(outcome, "outcome");
        requireNonNull(keys, "keys");
        requireNonNull(evidence, "evidence");
    }

    /** A decision outside any prefill backlog. */
    public RouteDecision(
            BackendCluster cluster, Optional<AffinityOutcome> outcome, int run, BlockKeys keys, RunEvidence evidence) {
        this(cluster, outcome, run, keys, evidence, -1);
    }

    /** A decision without usage evidence. */
    public RouteDecision(BackendCluster cluster, Optional<AffinityOutcome> outcome, int run, BlockKeys keys) {
        this(cluster, outcome, run, keys, RunEvidence.NONE);
    }

    /** The cached prompt tokens this decision predicts: the run at 64 tokens a block. */
    public long predictedCachedTokens() {
        return run * 64L;
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
