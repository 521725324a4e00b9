package grid.gateway.routing.load;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * One backend cluster's measured prefill rate, queued-request cost and cache size, from the series its engines
 * export ({@link EngineSample}); the {@code auto} values of {@code prefix_affinity}.
 *
 * <pre>
 *   prefill rate     Δ(prompt_tokens − prefix_cache_hits) ÷ Δ request_prefill_time_seconds_sum
 *                    uncached tokens computed per second the engines spent prefilling
 *   queued cost      (Δ request_inference_time_seconds_sum ÷ Δ _count) ÷ slots
 *                    a waiting request starts when a slot frees: one frees every mean occupancy ÷ slots seconds;
 *                    slots = the most sequences ever seen running (num_requests_running)
 *   capacity         Σ (num_gpu_blocks + num_cpu_blocks) × block_size ÷ 64 tokens a prefix entry,
 *                    within [{@value #MIN_CAPACITY}, {@value #MAX_CAPACITY}]
 * </pre>
 *
 * <p>Against odd scrapes: deltas accumulate from a base sample until at least {@value #MIN_REQUESTS} requests
 * finished, so one observation spans several requests; each observation moves the estimate by an exponentially
 * weighted step in log space ({@value #WEIGHT} of the way) and never more than a factor {@value #MAX_STEP}; an
 * estimate is used only after {@value #WARM_OBSERVATIONS} observations. A counter that goes down (the engine
 * restarted) restarts the accumulation without an observation. Missing series give no observation; the
 * configured value stays in use.
 *
 * <p>Not thread-safe; {@link Calibration} serialises each cluster's updates.
 */
final class ClusterCalibration {
    static final int MIN_REQUESTS = 4;
    static final int WARM_OBSERVATIONS = 3;
    static final double WEIGHT = 0.3;
    static final double MAX_STEP = 2.0;
    static final int MIN_CAPACITY = 1_024;
    static final int MAX_CAPACITY = 4_194_304;
    static final int TOKENS_PER_ENTRY = 64;

    private @Nullable EngineSample base;
    private double slots;
    private double running = Double.NaN;
    private final Estimate prefill = new Estimate();
    private final Estimate queued = new Estimate();
    private OptionalInt capacity = OptionalInt.empty();

    /** Takes one scrape. */
    void observe(EngineSample sample) {
        sample.running().ifPresent(now -> {
            slots = Math.max(slots, now);
            running = now;
        });
        sample.cacheTokens()
                .ifPresent(tokens -> capacity = OptionalInt.of(
                        (int) Math.max(MIN_CAPACITY, Math.min(MAX_CAPACITY, Math.floor(tokens / TOKENS_PER_ENTRY)))));
        if (base == null || wentDown(base, sample)) {
            base = sample;
            return;
        }
        OptionalDouble finished = delta(base.runningRequests(), sample.runningRequests());
        OptionalDouble prompt = delta(base.promptTokens(), sample.promptTokens());
        OptionalDouble hits = delta(base.cachedTokens(), sample.cachedTokens());
        OptionalDouble prefillSeconds = delta(base.prefillSeconds(), sample.prefillSeconds());
        OptionalDouble runningSeconds = delta(base.runningSeconds(), sample.runningSeconds());
        if (finished.isEmpty()) {
            // A base without the request count (a scrape that carried none of the series) can never give an
            // observation: accumulate from this sample instead, or calibration would wait on that base forever.
            base = sample;
            return;
        }
        if (finished.getAsDouble() < MIN_REQUESTS) {
            return;
        }
        if (prompt.isPresent() && prefillSeconds.isPresent() && prefillSeconds.getAsDouble() > 0) {
            double uncached = prompt.getAsDouble() - hits.orElse(0);
            if (uncached > 0) {
                prefill.observe(uncached / prefillSeconds.getAsDouble());
            }
        }
        if (runningSeconds.isPresent() && runningSeconds.getAsDouble() > 0 && slots >= 1) {
            queued.observe(runningSeconds.getAsDouble() / finished.getAsDouble() / slots);
        }
        base = sample;
    }

    /** The measured prefill rate, once warm. */
    OptionalDouble prefillTokensPerSecond() {
        return prefill.value();
    }

    /** The measured queued-request cost, once warm. */
    OptionalDouble queuedRequestSeconds() {
        return queued.value();
    }

    /** Sequences running at the latest scrape, and the most ever seen (the slots); empty until reported. */
    Optional<Occupancy> occupancy() {
        return Double.isNaN(running) || slots < 1 ? Optional.empty() : Optional.of(new Occupancy(running, slots));
    }

    /** The capacity the engines' cache justifies, once reported. */
    OptionalInt capacity() {
        return capacity;
    }

    private static boolean wentDown(EngineSample before, EngineSample after) {
        return down(before.promptTokens(), after.promptTokens())
                || down(before.cachedTokens(), after.cachedTokens())
                || down(before.prefillSeconds(), after.prefillSeconds())
                || down(before.runningSeconds(), after.runningSeconds())
                || down(before.runningRequests(), after.runningRequests());
    }

    private static boolean down(OptionalDouble before, OptionalDouble after) {
        return before.isPresent() && after.isPresent() && after.getAsDouble() < before.getAsDouble();
    }

    private static OptionalDouble delta(OptionalDouble before, OptionalDouble after) {
        return before.isPresent() && after.isPresent()
                ? OptionalDouble.of(after.getAsDouble() - before.getAsDouble())
                : OptionalDouble.empty();
    }

    /** A smoothed positive estimate, in log space. */
    private static final class Estimate {
        private double log;
        private int observations;

        void observe(double value) {
            if (!(value > 0) || Double.isInfinite(value)) {
                return;
            }
            double next = Math.log(value);
            if (observations == 0) {
                log = next;
            } else {
                double step = WEIGHT * (next - log);
                double bound = Math.log(MAX_STEP);
                log += Math.max(-bound, Math.min(bound, step));
            }
            observations++;
        }

        OptionalDouble value() {
            return observations >= WARM_OBSERVATIONS ? OptionalDouble.of(Math.exp(log)) : OptionalDouble.empty();
        }
    }
}
