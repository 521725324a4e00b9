package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.select.AffinityOutcome;
import java.util.Map;

/**
 * What one run measured, over the requests that arrived after the warm-up (the first tenth of the sessions).
 *
 * <p>Thread-safe (immutable).
 *
 * @param workload the trace's workload label ({@link Trace#workload()})
 * @param grid the grid's name ({@link SimGrid#name()})
 * @param replicas gateway replicas behind a random spread (1 for policies without gateway state)
 * @param policy the policy's name
 * @param load the offered load as a fraction of the grid's capacity
 * @param requests measured requests, served or failed
 * @param hitRate prompt tokens served from the engines' prefix caches ÷ prompt tokens, over served requests
 * @param meanTtft mean simulated time to first token of served requests, seconds (a retry's from the first arrival)
 * @param p90Ttft 90th percentile of it, seconds
 * @param queueSpread mean over scrapes of (deepest − shallowest waiting line across clusters)
 * @param outcomes share of measured requests per affinity outcome of their last attempt (empty map for policies
 *     without outcomes)
 * @param failedShare share of measured requests whose both attempts were answered with errors
 * @param retriedShare share of measured requests whose first attempt was answered with an error
 * @param predictedCached {@code grid_site_route}'s predicted cached tokens (decision run × 64) summed over served
 *     requests (0 for other policies)
 * @param reportedCached the engines' cached tokens of the same requests, summed
 * @param reachableCached the same, each request's capped at its keys × 64 tokens: what the keys can show (the keyer
 *     stops at 512 keys, so a prompt's cached tokens beyond 32,768 are reported but never predicted)
 * @param tail what the slowest tenth of served requests (time to first token at or above the p90) were
 */
public record RunResult(
        String workload,
        String grid,
        int replicas,
        String policy,
        double load,
        int requests,
        double hitRate,
        double meanTtft,
        double p90Ttft,
        double queueSpread,
        Map<AffinityOutcome, Double> outcomes,
        double failedShare,
        double retriedShare,
        long predictedCached,
        long reportedCached,
        long reachableCached,
        Tail tail) {

    public RunResult {
        requireNonNull(tail, "tail");
        requireNonNull(workload, "workload");
        requireNonNull(grid, "grid");
        requireNonNull(policy, "policy");
        outcomes = Map.copyOf(outcomes);
    }

    /**
     * What a run was.
     *
     * @param workload the trace's workload label
     * @param grid the grid's name
     * @param replicas gateway replicas
     * @param policy the policy's name
     * @param load the offered load
     */
    public record Key(String workload, String grid, int replicas, String policy, double load) {}

    /** This result under another policy name (a configuration's runs are labelled with it). */
    public RunResult named(String newPolicy) {
        return relabelled(newPolicy, load);
    }

    /** This result reported at offered load {@code reported} (a replayed trace run against its peak). */
    public RunResult atLoad(double reported) {
        return relabelled(policy, reported);
    }

    private RunResult relabelled(String newPolicy, double newLoad) {
        return new RunResult(
                workload,
                grid,
                replicas,
                newPolicy,
                newLoad,
                requests,
                hitRate,
                meanTtft,
                p90Ttft,
                queueSpread,
                outcomes,
                failedShare,
                retriedShare,
                predictedCached,
                reportedCached,
                reachableCached,
                tail);
    }

    /**
     * The slowest tenth of a run's served requests: why they were slow.
     *
     * @param shares share of them per kind: a retried request ({@code retried}), else its outcome's label, else
     *     {@code none} (policies without outcomes)
     * @param slotWait mean seconds waiting for a slot (the scraped queue)
     * @param prefillWait mean seconds waiting, in a slot, for the prompts ahead of it on the prefill path
     * @param ownPrefill mean seconds computing its own uncached prompt
     */
    public record Tail(Map<String, Double> shares, double slotWait, double prefillWait, double ownPrefill) {
        public Tail {
            shares = Map.copyOf(shares);
        }

        /** No served request. */
        static final Tail NONE = new Tail(Map.of(), 0, 0, 0);

        /** The share of {@code kind}, 0 when none. */
        public double share(String kind) {
            return shares.getOrDefault(kind, 0.0);
        }
    }

    /** This run's key. */
    public Key key() {
        return new Key(workload, grid, replicas, policy, load);
    }

    /** The share of requests with {@code outcome}, 0 when none. */
    public double share(AffinityOutcome outcome) {
        return outcomes.getOrDefault(outcome, 0.0);
    }
}
