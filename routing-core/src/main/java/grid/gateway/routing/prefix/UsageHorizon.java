package grid.gateway.routing.prefix;

/**
 * How long a cluster's engines keep what this replica sent them, learned from the cached tokens they report
 * ({@code learn_from_usage}). An engine's prefix cache is an LRU, often smaller than the memory and shared with
 * other replicas' traffic: an entry confirmed longer ago than the engine keeps such entries predicts a hit the engine
 * no longer has. A 2xx says nothing about that; the answer's {@code cached_tokens} does.
 *
 * <pre>
 *   held ≈ reported ÷ 64 tokens a block        the blocks the engine still had (the keyer's 4-bytes-a-token estimate)
 *   n    = blocks the memory held at routing     (RunEvidence, unexpired, horizon ignored)
 *   held ≥ 60% of n   kept:    block n−1 was still there at its age       → a "kept" witness at that age
 *   held < 30% of n   evicted: block ⌊held⌋ was gone at its age            → an "evicted" witness at that age
 *   in between        no lesson: within the slack of the token estimate
 *
 *   witnesses are counted in age buckets that double (1 s, 2 s, 4 s, … 2^15 s), every count decaying by
 *   {@value #DECAY} at each lesson, so the last hundred or so lessons speak;
 *   horizon = the lower edge of the lowest bucket b whose own witnesses are mostly evictions and such that,
 *             over all witnesses at least that old, evicted ones outnumber kept ones; none: no horizon (the TTL
 *             alone)
 * </pre>
 *
 * Blocks confirmed longer ago than the horizon stop counting toward a run, so a cluster whose engine evicted
 * conversations of that age stops being sticky for them, while what the engine still holds keeps its affinity. The
 * majority over everything older makes one odd report unable to cut a horizon that many kept witnesses support, and
 * lets kept witnesses at any age raise it again. The wide dead band (30% to 60%) absorbs tokenizers that put 3 to 6
 * bytes in a token: the memory counts 256-byte blocks, the engine counts tokens.
 *
 * <p>Not thread-safe; {@link PrefixMemory} serialises each cluster's lessons.
 */
final class UsageHorizon {
    static final double KEPT_SHARE = 0.6;
    static final double EVICTED_SHARE = 0.3;
    static final double DECAY = 0.99;
    static final int TOKENS_PER_BLOCK = 64;
    static final int BUCKETS = 16;
    private static final long SECOND = 1_000_000_000L;

    private final double[] kept = new double[BUCKETS];
    private final double[] evicted = new double[BUCKETS];
    private long horizonNanos = Long.MAX_VALUE;

    /** Learns from one answer; returns the horizon now in force, {@code Long.MAX_VALUE} when there is none. */
    long learn(RunEvidence evidence, long reportedTokens) {
        int blocks = evidence.blocks();
        if (blocks == 0 || reportedTokens < 0) {
            return horizonNanos;
        }
        double held = reportedTokens / (double) TOKENS_PER_BLOCK;
        if (held >= KEPT_SHARE * blocks) {
            witness(kept, evidence.ageNanos(blocks - 1));
        } else if (held < EVICTED_SHARE * blocks) {
            witness(evicted, evidence.ageNanos((int) Math.min(blocks - 1, Math.floor(held))));
        } else {
            return horizonNanos;
        }
        horizonNanos = horizon();
        return horizonNanos;
    }

    /** The horizon in force, {@code Long.MAX_VALUE} when none was learned. */
    long nanos() {
        return horizonNanos;
    }

    private void witness(double[] counts, long ageNanos) {
        for (int b = 0; b < BUCKETS; b++) {
            kept[b] *= DECAY;
            evicted[b] *= DECAY;
        }
        counts[bucket(ageNanos)] += 1;
    }

    private long horizon() {
        double keptOlder = 0;
        double evictedOlder = 0;
        int lowest = -1;
        for (int b = BUCKETS - 1; b >= 0; b--) {
            keptOlder += kept[b];
            evictedOlder += evicted[b];
            if (evicted[b] > kept[b] && evictedOlder > keptOlder) {
                lowest = b;
            }
        }
        return lowest < 0 ? Long.MAX_VALUE : lowerEdgeNanos(lowest);
    }

    /** Bucket 0 holds ages under 2 s; bucket b ≥ 1 holds [2^b, 2^(b+1)) seconds; the last one everything older. */
    static int bucket(long ageNanos) {
        long seconds = Math.max(0, ageNanos) / SECOND;
        int b = seconds < 2 ? 0 : 63 - Long.numberOfLeadingZeros(seconds);
        return Math.min(BUCKETS - 1, b);
    }

    static long lowerEdgeNanos(int bucket) {
        return bucket == 0 ? 0 : (1L << bucket) * SECOND;
    }
}
