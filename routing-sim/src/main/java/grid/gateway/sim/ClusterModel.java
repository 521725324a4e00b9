package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

/**
 * The service model of one simulated backend cluster (one engine deployment).
 *
 * <pre>
 *   arrive ─▶ [ waiting line, FIFO ] ─▶ slot (at most {@code slots} sequences)
 *          ─▶ prefill: one FIFO prefill server, uncached prompt tokens at {@code prefillTokensPerSecond}
 *          ─▶ first token ─▶ decode: {@code outputTokens / decodeTokensPerSecond}, per sequence ─▶ slot freed
 * </pre>
 *
 * Prefill is compute-bound and shared by the cluster (vLLM schedules prefill chunks of its running requests in
 * order), decode is memory-bound and runs per sequence, and the scraped queue depth is the waiting line
 * ({@code vllm:num_requests_waiting}).
 *
 * <p>Thread-safe (immutable).
 *
 * @param site the site's name (a DNS-1123 label)
 * @param name the cluster's name
 * @param slots sequences that run at once (vLLM's {@code max_num_seqs}, or what its KV memory holds)
 * @param prefillTokensPerSecond uncached prompt tokens the cluster computes per second
 * @param decodeTokensPerSecond output tokens per second of one sequence
 * @param cacheTokens prefix-cache capacity in tokens (an LRU of KV blocks)
 */
public record ClusterModel(
        String site,
        String name,
        int slots,
        double prefillTokensPerSecond,
        double decodeTokensPerSecond,
        int cacheTokens) {

    public ClusterModel {
        requireNonNull(site, "site");
        requireNonNull(name, "name");
        if (slots <= 0 || !(prefillTokensPerSecond > 0) || !(decodeTokensPerSecond > 0) || cacheTokens < 0) {
            throw new IllegalArgumentException("cluster " + name + ": slots and rates must be > 0, cache >= 0");
        }
    }

    /**
     * The request rate this cluster sustains when requests carry {@code uncachedTokens} of prefill and
     * {@code outputTokens} of decode on average: the smaller of what the prefill server and the slots allow.
     */
    public double capacity(double uncachedTokens, double outputTokens) {
        double prefillSeconds = uncachedTokens / prefillTokensPerSecond;
        double bySlots = slots / (prefillSeconds + outputTokens / decodeTokensPerSecond);
        double byPrefill = prefillSeconds > 0 ? 1 / prefillSeconds : Double.POSITIVE_INFINITY;
        return Math.min(bySlots, byPrefill);
    }
}
