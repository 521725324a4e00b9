package grid.gateway.sim;

import java.util.List;

/**
 * The engine's view of a token stream: chained hashes of its full KV blocks, as vLLM's prefix cache keys them.
 *
 * <p>Each segment is rendered as one role token then its pseudo-tokens (derived from the segment's id and the
 * position in it); a block's hash chains every token before it, so equal hashes mean equal prefixes. The first
 * block is seeded with the model and the {@code cache_salt}, so different salts share nothing. This is the
 * engine's own keying, separate from the gateway's 256-byte blocks over the request's JSON: the two agree on what
 * is shared but not on where blocks end, as in production.
 *
 * <p>Stateless and thread-safe.
 */
public final class EngineBlocks {
    /** Tokens per KV block (vLLM's default block size). */
    public static final int BLOCK_TOKENS = 16;

    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private EngineBlocks() {}

    /** The tokens {@code segments} take in the stream: each one's tokens plus its role token. */
    public static int tokens(List<Segment> segments) {
        int tokens = 0;
        for (Segment segment : segments) {
            tokens += segment.tokens() + 1;
        }
        return tokens;
    }

    /** The hashes of the full blocks of {@code segments}, seeded with {@code seed} (model and salt). */
    public static long[] hashes(long seed, List<Segment> segments) {
        long[] hashes = new long[tokens(segments) / BLOCK_TOKENS];
        long running = mix(seed);
        int position = 0;
        for (Segment segment : segments) {
            running = mix(running ^ (segment.role().ordinal() + 1) * GOLDEN);
            position = record(hashes, position, running);
            long base = mix(segment.id() * GOLDEN + 7);
            for (int i = 0; i < segment.tokens(); i++) {
                running = mix(running ^ (base + i * GOLDEN));
                position = record(hashes, position, running);
            }
        }
        return hashes;
    }

    /** A seed for the model and the optional salt. */
    public static long seed(String model, String salt) {
        return mix(model.hashCode() * GOLDEN ^ mix(salt.hashCode() + 1L));
    }

    private static int record(long[] hashes, int position, long running) {
        int next = position + 1;
        if (next % BLOCK_TOKENS == 0 && next / BLOCK_TOKENS <= hashes.length) {
            hashes[next / BLOCK_TOKENS - 1] = running;
        }
        return next;
    }

    /** Stafford's mix13 finalizer: a cheap 64-bit hash with good avalanche. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
