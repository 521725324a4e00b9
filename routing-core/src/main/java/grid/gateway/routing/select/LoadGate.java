package grid.gateway.routing.select;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import java.util.OptionalDouble;

/**
 * Whether load outweighs a match (docs/design.md §6; the seed's "When load wins").
 *
 * <pre>
 *   worth(run) = run × 64 tokens / prefill_tokens_per_second / queued_request_seconds   (queued requests)
 *   reopens    = s unmeasured and o measured
 *             or queue(s) − queue(o) > worth(run)
 * </pre>
 *
 * With {@code auto} prices each cluster has its own numbers, and the same rule is read in seconds: the wait at
 * {@code s} beyond the wait at {@code o} against the prefill {@code o} would spend on the matched tokens,
 *
 * <pre>
 *   reopens = queue(s) × queued_s − queue(o) × queued_o > run × 64 / prefill_o
 * </pre>
 *
 * which is the seed's rule whenever both clusters cost the same per queued request (evaluated in the seed's form
 * then, so configured numbers give exactly the seed's decisions).
 *
 * where {@code s} is the least-queued sticky cluster and {@code o} the least-queued other candidate. At the defaults
 * a 40-block match is worth 0.128 of a queued request and a 400-block match 1.28. An unmeasured sticky cluster
 * gives way to a measured other, but not to another unmeasured one; a measured sticky cluster is never compared
 * with an unmeasured other.
 *
 * <p>Stateless and thread-safe.
 */
public final class LoadGate {
    /** The keyer's estimate: 256 bytes a block, about 4 bytes a token. */
    public static final int TOKENS_PER_BLOCK = 64;

    private LoadGate() {}

    /** What a run of {@code run} blocks saves, in queued requests. */
    public static double worth(int run, PrefixAffinitySettings settings) {
        return run * (double) TOKENS_PER_BLOCK / settings.prefillTokensPerSecond() / settings.queuedRequestSeconds();
    }

    /** Whether the sticky set reopens, each candidate priced by its own numbers where it has them. */
    public static boolean reopens(Candidate sticky, Candidate other, int run, PrefixAffinitySettings settings) {
        return weigh(sticky, other, run, settings).reopens();
    }

    /** The gate's arithmetic for {@code sticky} against {@code other}: what {@link #reopens} decides, and why. */
    public static Weighing weigh(Candidate sticky, Candidate other, int run, PrefixAffinitySettings settings) {
        Prices prices = new Prices(
                sticky.prices().map(ClusterPrices::queuedRequestSeconds).orElse(settings.queuedRequestSeconds()),
                other.prices().map(ClusterPrices::queuedRequestSeconds).orElse(settings.queuedRequestSeconds()),
                other.prices().map(ClusterPrices::prefillTokensPerSecond).orElse(settings.prefillTokensPerSecond()));
        return weigh(sticky.queueDepth(), other.queueDepth(), run, prices);
    }

    /** Whether the sticky set reopens, both clusters priced by {@code settings}. */
    public static boolean reopens(
            OptionalDouble stickyQueue, OptionalDouble otherQueue, int run, PrefixAffinitySettings settings) {
        double cost = settings.queuedRequestSeconds();
        return weigh(stickyQueue, otherQueue, run, new Prices(cost, cost, settings.prefillTokensPerSecond()))
                .reopens();
    }

    /**
     * The gate's arithmetic, as {@code /route/explain} shows it.
     *
     * @param worth what the match saves: in queued requests, or in seconds when the two clusters' queued requests cost
     *     differently
     * @param gap the queue at the sticky cluster beyond the other's, in the same unit; empty when either is unmeasured
     *     (then only measurement decides: an unmeasured sticky cluster gives way to a measured other)
     * @param inSeconds whether {@code worth} and {@code gap} are seconds rather than queued requests
     * @param reopens whether load outweighs the match: {@code gap > worth}
     */
    public record Weighing(double worth, OptionalDouble gap, boolean inSeconds, boolean reopens) {
        public Weighing {
            requireNonNull(gap, "gap");
        }
    }

    /** A queued request's cost at the sticky and the other cluster, and the other's prefill rate. */
    private record Prices(double stickyCost, double otherCost, double otherPrefill) {}

    private static Weighing weigh(OptionalDouble stickyQueue, OptionalDouble otherQueue, int run, Prices prices) {
        double saved = run * (double) TOKENS_PER_BLOCK / prices.otherPrefill();
        boolean sameCost = prices.stickyCost() == prices.otherCost();
        // The seed's rule in the seed's own arithmetic when both cost the same: queue(s) − queue(o) > worth(run).
        double worth = sameCost ? saved / prices.stickyCost() : saved;
        if (stickyQueue.isEmpty() || otherQueue.isEmpty()) {
            return new Weighing(
                    worth, OptionalDouble.empty(), !sameCost, stickyQueue.isEmpty() && otherQueue.isPresent());
        }
        double gap = sameCost
                ? stickyQueue.getAsDouble() - otherQueue.getAsDouble()
                : stickyQueue.getAsDouble() * prices.stickyCost() - otherQueue.getAsDouble() * prices.otherCost();
        return new Weighing(worth, OptionalDouble.of(gap), !sameCost, gap > worth);
    }
}
