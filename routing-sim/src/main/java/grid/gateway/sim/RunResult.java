package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.select.AffinityOutcome;
import java.util.Map;

/**
 * What one run measured, over the requests that arrived after the warm-up (the first tenth of the sessions).
 *
 * <p>Thread-safe (immutable).
 *
 * @param workload the trace's workload
 * @param policy the policy's name
 * @param load the offered load as a fraction of the grid's capacity
 * @param requests measured requests
 * @param hitRate prompt tokens served from the engines' prefix caches ÷ prompt tokens
 * @param meanTtft mean simulated time to first token, seconds
 * @param p90Ttft 90th percentile of it, seconds
 * @param queueSpread mean over scrapes of (deepest − shallowest waiting line across clusters)
 * @param outcomes share of measured requests per affinity outcome (empty map for policies without outcomes)
 */
public record RunResult(
        Workload workload,
        String policy,
        double load,
        int requests,
        double hitRate,
        double meanTtft,
        double p90Ttft,
        double queueSpread,
        Map<AffinityOutcome, Double> outcomes) {

    public RunResult {
        requireNonNull(workload, "workload");
        requireNonNull(policy, "policy");
        outcomes = Map.copyOf(outcomes);
    }

    /** The share of requests with {@code outcome}, 0 when none. */
    public double share(AffinityOutcome outcome) {
        return outcomes.getOrDefault(outcome, 0.0);
    }
}
