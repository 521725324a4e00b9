package grid.gateway.routing.select;

import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.prefix.PrefixAffinitySettings;

/**
 * The time to first token a candidate is expected to give a request ({@code load.order_by: expected_wait}), from what
 * the gateway knows of it:
 *
 * <pre>
 *   wait(c)        = queue(c) × queued_request_seconds(c) + prefill backlog(c)
 *   expected(c, r) = wait(c) + uncached(c, r) × 64 tokens ÷ prefill_tokens_per_second(c)
 *   uncached(c, r) = prompt blocks − run(c)     the run ends before the last key: the prompts part there
 *                  = 0                          the run reaches the last key
 * </pre>
 *
 * The keyer stops at 512 keys (32k tokens); a longer prompt's length in blocks is estimated from its body
 * ({@link BlockKeys#promptBlocks()}). A prefix cache holds prefixes only, so a run that ends before the last key
 * leaves all the rest to compute; a run that reaches the 512th key says nothing of what follows, and the rest is
 * counted as held there too (a conversation's next turn repeats the whole earlier one; in the Mooncake trace,
 * prompts that share 64 blocks of 512 tokens share 95% of what follows).
 *
 * A waiting request starts when a slot frees, and then waits for the prompts sent before it, which an engine computes one
 * after another (the sum was better than the longer of the two in the simulator on 12 of 17 cells compared,
 * docs/tuning.md). Each cluster is priced by its own numbers where it has them ({@code auto}), else by the configured
 * ones. With the same prices everywhere, a sticky cluster {@code s} loses to another {@code o} exactly when the seed's
 * gate reopens ({@link LoadGate}): {@code queue(s) − queue(o) > run × 64 ÷ prefill ÷ queued}, once {@code o} holds none
 * of the prompt and neither has a backlog.
 *
 * <p>Stateless and thread-safe.
 */
public final class ExpectedWait {
    private ExpectedWait() {}

    /** Seconds {@code candidate} keeps a request waiting before its prefill starts. */
    public static double waitSeconds(Candidate candidate, PrefixAffinitySettings settings) {
        double queued =
                candidate.prices().map(ClusterPrices::queuedRequestSeconds).orElse(settings.queuedRequestSeconds());
        return candidate.queueDepth().orElse(0) * queued + candidate.prefillBacklogSeconds();
    }

    /** Seconds to the first token of the request of {@code keys}, {@code run} of its blocks held by {@code candidate}. */
    public static double seconds(Candidate candidate, BlockKeys keys, int run, PrefixAffinitySettings settings) {
        return seconds(candidate, run + uncachedBlocks(keys, run), run, settings);
    }

    /** Blocks of the prompt of {@code keys} a cluster holding {@code run} of them must compute. */
    public static int uncachedBlocks(BlockKeys keys, int run) {
        return run >= keys.size() ? 0 : keys.promptBlocks() - run;
    }

    /**
     * Seconds to the first token of a request of {@code blocks} blocks, {@code run} of them held by
     * {@code candidate} (a prompt the keyer keyed to its end).
     */
    public static double seconds(Candidate candidate, int blocks, int run, PrefixAffinitySettings settings) {
        double prefill =
                candidate.prices().map(ClusterPrices::prefillTokensPerSecond).orElse(settings.prefillTokensPerSecond());
        double uncached = Math.max(0, blocks - run) * (double) LoadGate.TOKENS_PER_BLOCK;
        return waitSeconds(candidate, settings) + uncached / prefill;
    }
}
