package grid.gateway.routing.select;

import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.util.List;

/**
 * The time to first token a candidate is expected to give a request ({@code load.order_by: expected_wait}), from what
 * the gateway knows of it:
 *
 * <pre>
 *   wait(c)        = queue(c) × queued_request_seconds(c) + prefill backlog(c)
 *   expected(c, r) = wait(c) + uncached(c, r) × 64 tokens ÷ prefill_tokens_per_second(c)
 *   uncached(c, r) = prompt blocks − run(c)     the run ends before the last key: the prompts part there
 *                  = 0                          the run reaches the last key
 *   a request that is not sticky, when every candidate has a line waiting for a slot: wait(c) alone
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
 * ones. A sticky request leaves its sticky set only when another candidate is expected more than {@link #LEAVE_FACTOR}
 * times sooner ({@link #stays}); with a factor of 1 and the same prices everywhere that would be exactly the seed's gate
 * ({@link LoadGate}: {@code queue(s) − queue(o) > run × 64 ÷ prefill ÷ queued}, once {@code o} holds none of the prompt
 * and neither has a backlog), and the margin makes it reopen later.
 *
 * <p>Stateless and thread-safe.
 */
public final class ExpectedWait {
    private ExpectedWait() {}

    /**
     * How many times sooner another candidate must be expected to answer than the soonest sticky one before a sticky
     * request leaves its sticky set. The estimates are rough (a request's prefill estimate ran 7–27% short in the
     * simulator, and a backlog counts only what this replica sent), and leaving costs more than the estimate shows: the
     * prompt's prefix is computed again elsewhere, evicting other prefixes there, while the sticky cluster's copy ages.
     * Leaving on any difference cost up to 3 points of hit rate against 1.25 × in the simulator (Mooncake trace, slow grid:
     * 50.6% against 53.5%); wider margins kept more hits but held requests at overloaded clusters (shared-chat, slow
     * grid: p90 1.9 s at 2 ×, against 0.76 s without a margin and 1.03 s at 1.25 ×; docs/routing-studies.md).
     */
    public static final double LEAVE_FACTOR = 1.25;

    /**
     * How many times later than the soonest candidate a request that is not sticky (a miss) may be expected to answer
     * at a candidate that keeps prefixes longer ({@link RunLookup#retentionNanos}), and go there. Placed by expected
     * time alone, new prefixes all land on the soonest cluster, whose cache then evicts them before their next turn
     * while the others' caches keep prefixes for longer: on the Mooncake trace (long prompts, engine caches smaller
     * than its prefixes) that cost the recommended settings 2-4 points of hit rate against the defaults, which spread
     * misses over equal queues at random. Within this factor the hit rate came back on most of the trace's cells, with
     * a lower p90; wider windows send misses to slow clusters once the fast ones queue (at 110% load on the mixed
     * grid, 1.5 × multiplied the p90 by 3-7 and 2 × by 15; docs/routing-studies.md).
     */
    public static final double ROOM_FACTOR = 1.25;

    /**
     * Whether a sticky request stays at the soonest sticky candidate, expected in {@code stickySeconds}, though another
     * is expected sooner, in {@code soonestSeconds}: unless the other is more than {@link #LEAVE_FACTOR} times sooner.
     */
    public static boolean stays(double stickySeconds, double soonestSeconds) {
        return stickySeconds <= LEAVE_FACTOR * soonestSeconds;
    }

    /**
     * Whether no candidate can start a request at once: each is measured with a line waiting for a slot (its queue
     * depth, with what was sent since the scrape, at least one). A request that keeps nothing anywhere (not sticky) is
     * then ordered by {@link #waitSeconds} alone, without its own prefill: in saturation that term sorts prompts by
     * length onto the clusters that prefill fastest, which on a grid whose prefill grows with its slots are simply the
     * largest, and their lines then hold more work than their length says. In the simulator that made one-off prompts
     * on the fast grid at 110% load 5–6% slower than least-queued; without it they were 1–2% faster, and the mixed
     * grid, where the term matters most, keeps it whenever some cluster has a free slot (docs/routing-studies.md).
     */
    public static boolean saturated(List<Candidate> candidates) {
        for (Candidate candidate : candidates) { // a loop, not a stream: it runs for every keyed request
            if (candidate.queueDepth().orElse(0) < 1) {
                return false;
            }
        }
        return true;
    }

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
