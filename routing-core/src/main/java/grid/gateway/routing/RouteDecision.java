package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.RunEvidence;
import grid.gateway.routing.select.AffinityOutcome;
import java.util.Optional;
import java.util.OptionalLong;

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
 * @param inFlightStamp the request's stamp among the requests in flight at its cluster
 *     ({@code InFlightSinceScrape}), which its end takes off; empty for a decision made outside routing
 */
public record RouteDecision(
        BackendCluster cluster,
        Optional<AffinityOutcome> outcome,
        int run,
        BlockKeys keys,
        RunEvidence evidence,
        long backlogMark,
        OptionalLong inFlightStamp) {
    public RouteDecision {
        requireNonNull(cluster, "cluster");
        requireNonNull(outcome, "outcome");
        requireNonNull(keys, "keys");
        requireNonNull(evidence, "evidence");
        requireNonNull(inFlightStamp, "inFlightStamp");
    }

    /** A decision without an in-flight stamp. */
    // The canonical constructor's parameters but the last.
    @SuppressWarnings("checkstyle:parameternumber")
    public RouteDecision(
            BackendCluster cluster,
            Optional<AffinityOutcome> outcome,
            int run,
            BlockKeys keys,
            RunEvidence evidence,
            long backlogMark) {
        this(cluster, outcome, run, keys, evidence, backlogMark, OptionalLong.empty());
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

    /**
     * This decision for a request whose answer teaches the prefix memory nothing (it computes no prompt): no keys, no
     * evidence, outside the prefill backlog; its in-flight stamp kept.
     */
    public RouteDecision withoutKeys() {
        return new RouteDecision(cluster, outcome, run, BlockKeys.none(), RunEvidence.NONE, -1, inFlightStamp);
    }

    /**
     * This decision reported as {@code outcome}: a retry after a connect failure is no second affinity decision, so
     * the request keeps the first one's outcome (the one counted) in its records, whatever cluster serves it.
     */
    public RouteDecision withOutcome(Optional<AffinityOutcome> outcome) {
        return new RouteDecision(cluster, outcome, run, keys, evidence, backlogMark, inFlightStamp);
    }

    /** This decision with the in-flight stamp {@code stamp}. */
    RouteDecision stamped(long stamp) {
        return new RouteDecision(cluster, outcome, run, keys, evidence, backlogMark, OptionalLong.of(stamp));
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
