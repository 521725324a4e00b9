package grid.gateway.routing.prefix;

/**
 * How long a cluster's engines keep what this replica sent them, learned from the cached tokens they report
 * ({@code learn_from_usage}). An engine's prefix cache is an LRU far smaller than the memory may be, shared with
 * other replicas' traffic: an entry confirmed longer ago than the engine's eviction horizon predicts a hit the engine
 * no longer has. A 2xx says nothing about that; the answer's {@code cached_tokens} does.
 *
 * <pre>
 *   held ≈ reported ÷ 64 tokens a block         the blocks the engine still had (the keyer's 4-bytes-a-token estimate)
 *   n    = blocks the memory held at routing      (RunEvidence, unexpired, horizon ignored)
 *   held ≥ 60% of n   kept:    block n−1 survived at its age a      → horizon rises toward a   (if a > horizon)
 *   held < 30% of n   evicted: block ⌊held⌋ was gone at its age a   → horizon falls toward a   (if a < horizon)
 *   in between        no lesson: within the slack of the token estimate
 * </pre>
 *
 * Each lesson moves the horizon {@value #WEIGHT} of the way to the witnessed age; the first eviction sets it
 * outright (until then there is no horizon, only the TTL). Blocks confirmed longer ago than the horizon then stop
 * counting toward a run, so a cluster whose engine evicted a conversation stops being sticky for it, while what the
 * engine still holds keeps its affinity. The wide dead band (30% to 60%) absorbs tokenizers that put 3 to 6 bytes in
 * a token: the memory counts 256-byte blocks, the engine counts tokens.
 *
 * <p>Not thread-safe; {@link PrefixMemory} serialises each cluster's lessons.
 */
final class UsageHorizon {
    static final double KEPT_SHARE = 0.6;
    static final double EVICTED_SHARE = 0.3;
    static final double WEIGHT = 0.25;
    static final int TOKENS_PER_BLOCK = 64;

    private double horizonNanos = Double.POSITIVE_INFINITY;

    /** Learns from one answer; returns the horizon now in force, {@code Long.MAX_VALUE} when there is none. */
    long learn(RunEvidence evidence, long reportedTokens) {
        int blocks = evidence.blocks();
        if (blocks > 0 && reportedTokens >= 0) {
            double held = reportedTokens / (double) TOKENS_PER_BLOCK;
            if (held >= KEPT_SHARE * blocks) {
                double age = evidence.ageNanos(blocks - 1);
                if (age > horizonNanos) {
                    horizonNanos += WEIGHT * (age - horizonNanos);
                }
            } else if (held < EVICTED_SHARE * blocks) {
                double age = Math.max(0, evidence.ageNanos((int) Math.min(blocks - 1, Math.floor(held))));
                if (Double.isInfinite(horizonNanos)) {
                    horizonNanos = age;
                } else if (age < horizonNanos) {
                    horizonNanos += WEIGHT * (age - horizonNanos);
                }
            }
        }
        return nanos();
    }

    /** The horizon in force, {@code Long.MAX_VALUE} when none was learned. */
    long nanos() {
        return Double.isInfinite(horizonNanos) ? Long.MAX_VALUE : (long) Math.min(Long.MAX_VALUE, horizonNanos);
    }
}
