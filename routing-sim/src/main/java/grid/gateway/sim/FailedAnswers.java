package grid.gateway.sim;

/**
 * The seeded share of answers that are errors: a cluster answers a request 429 (overloaded) or 503 (unavailable) at
 * once, without serving it. The draw depends only on the seed and the request's place in the trace (session, turn,
 * attempt), so every policy meets the same failures at the same requests, whichever cluster it picks.
 *
 * <p>What happens next (the same for every policy): the policy learns the status ({@link Policy#answered}: the
 * gateway's {@code SiteRouter.answered} drops the keys there), the client retries once at once, on whatever the
 * policy chooses then; if the retry also fails the request is counted as failed (no time to first token) and its
 * session goes on after its think time.
 *
 * <p>Thread-safe (immutable).
 *
 * @param tooManyRequests share of attempts answered 429
 * @param serverErrors share of attempts answered 503
 * @param seed the draws' seed: the study's, not a run's, so that every policy meets the same failures
 */
public record FailedAnswers(double tooManyRequests, double serverErrors, long seed) {
    public FailedAnswers {
        if (!(tooManyRequests >= 0) || !(serverErrors >= 0) || tooManyRequests + serverErrors >= 1) {
            throw new IllegalArgumentException("shares must be >= 0 and sum below 1");
        }
    }

    /** No failures. */
    public static FailedAnswers none() {
        return new FailedAnswers(0, 0, 0);
    }

    /** An even split of {@code share} between 429 and 503, drawn from {@code seed}. */
    public static FailedAnswers of(double share, long seed) {
        return new FailedAnswers(share / 2, share / 2, seed);
    }

    /** The status of attempt {@code attempt} (0 or 1) of the request at {@code session}, {@code turn}. */
    public int status(int session, int turn, int attempt) {
        long h = EngineBlocks.mix(
                seed ^ EngineBlocks.mix(session * 0x9E3779B97F4A7C15L + turn) ^ (attempt + 1) * 0xC2B2AE3D27D4EB4FL);
        double u = (h >>> 11) * 0x1.0p-53;
        if (u < tooManyRequests) {
            return 429;
        }
        return u < tooManyRequests + serverErrors ? 503 : 200;
    }
}
