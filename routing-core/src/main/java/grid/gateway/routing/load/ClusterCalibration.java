package grid.gateway.routing.load;

import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One backend cluster's measured prefill rate, slot time, batch and cache size, from the series its engines export
 * ({@link EngineSample}); the {@code auto} values of {@code prefix_affinity}. Each estimate reads only the series it
 * needs, so an engine that lacks one loses only the estimate that needs it ({@link #missing}).
 *
 * <pre>
 *   prefill rate     Δ(prompt_tokens − prefix_cache_hits) ÷ Δ request_prefill_time_seconds_sum
 *                    uncached tokens computed per second the engines spent prefilling; the observation waits for
 *                    {@value #MIN_REQUESTS} finished requests, counted from the first count series the engine
 *                    exports of request_prefill_time_seconds_count, request_success_total and
 *                    request_inference_time_seconds_count
 *   slot time        Δ request_inference_time_seconds_sum ÷ Δ its _count: how long a request holds a slot
 *   queued cost      slot time ÷ slots: a waiting request starts when a slot frees, one every slot time ÷ slots
 *   slots            the operator's max_running where set; else the most sequences seen running
 *                    (num_requests_running), known as the batch limit only once a scrape saw a line wait while
 *                    the batch ran at that size ({@link Occupancy})
 *   capacity         Σ (num_gpu_blocks + num_cpu_blocks) × block_size ÷ 64 tokens a prefix entry,
 *                    within [{@value #MIN_CAPACITY}, {@value #MAX_CAPACITY}]
 * </pre>
 *
 * <p>Against odd scrapes: deltas accumulate from a base sample (one per estimate) until at least
 * {@value #MIN_REQUESTS} requests finished, so one observation spans several requests; each observation moves the
 * estimate by an exponentially weighted step in log space ({@value #WEIGHT} of the way) and never more than a factor
 * {@value #MAX_STEP}; an estimate is used only after {@value #WARM_OBSERVATIONS} observations. A counter that goes
 * down (the engine restarted) restarts the accumulation without an observation. A scrape that lacks a series an
 * estimate needs is skipped by that estimate, whose base stays, so a series missing from some pages delays the
 * observation to the next page that has it and neither freezes nor skews it; a series never exported leaves the
 * configured value in use.
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

    /** The count series finished requests are counted from, in order of preference. */
    private static final List<Function<EngineSample, OptionalDouble>> COUNTS =
            List.of(EngineSample::prefillRequests, EngineSample::successRequests, EngineSample::runningRequests);

    private @Nullable EngineSample prefillBase;
    private @Nullable EngineSample slotTimeBase;
    private @Nullable EngineSample latest;
    private double slots;
    private double running = Double.NaN;
    private boolean saturated;
    private final Estimate prefill = new Estimate();
    private final Estimate slotTime = new Estimate();
    private OptionalInt capacity = OptionalInt.empty();

    /** Δ of the first count series both samples carry; empty when none is in both. */
    private static OptionalDouble finished(EngineSample before, EngineSample after) {
        for (Function<EngineSample, OptionalDouble> series : COUNTS) {
            OptionalDouble d = delta(series.apply(before), series.apply(after));
            if (d.isPresent()) {
                return d;
            }
        }
        return OptionalDouble.empty();
    }

    /**
     * Takes one scrape. A scrape that carries none of the series (a page that is no engine's) teaches nothing: every
     * estimate keeps its base, and {@link #missing} still speaks of the latest scrape that carried some.
     */
    void observe(EngineSample sample) {
        if (sample.carriesNothing()) {
            return;
        }
        latest = sample;
        sample.running().ifPresent(now -> {
            // A line waiting while the batch runs at the most ever seen: the batch is full at that size.
            if (sample.waiting().orElse(0) >= 1 && now >= slots && now >= 1) {
                saturated = true;
            }
            slots = Math.max(slots, now);
            running = now;
        });
        sample.cacheTokens()
                .ifPresent(tokens -> capacity = OptionalInt.of(
                        (int) Math.max(MIN_CAPACITY, Math.min(MAX_CAPACITY, Math.floor(tokens / TOKENS_PER_ENTRY)))));
        observePrefill(sample);
        observeSlotTime(sample);
    }

    private void observePrefill(EngineSample sample) {
        if (!prefillSeries(sample)) {
            // A sample without a series the rate needs is skipped, the base kept: the next one that has them all
            // measures from the base, so a series missing from every other page neither freezes nor skews the rate.
            return;
        }
        EngineSample base = prefillBase;
        if (base == null || wentDown(base, sample)) {
            prefillBase = sample;
            return;
        }
        OptionalDouble finished = finished(base, sample);
        if (finished.isEmpty()) {
            // The base counts requests in another series than this sample: accumulate from this sample instead.
            prefillBase = sample;
            return;
        }
        if (finished.getAsDouble() < MIN_REQUESTS) {
            return;
        }
        double uncached = delta(base.promptTokens(), sample.promptTokens()).getAsDouble()
                - delta(base.cachedTokens(), sample.cachedTokens()).getAsDouble();
        double seconds = delta(base.prefillSeconds(), sample.prefillSeconds()).getAsDouble();
        if (seconds > 0 && uncached > 0) {
            prefill.observe(uncached / seconds);
        }
        prefillBase = sample;
    }

    /** Whether {@code sample} carries every series the prefill rate needs: tokens, hits, seconds and a count. */
    private static boolean prefillSeries(EngineSample sample) {
        return sample.promptTokens().isPresent()
                && sample.cachedTokens().isPresent()
                && sample.prefillSeconds().isPresent()
                && COUNTS.stream().anyMatch(series -> series.apply(sample).isPresent());
    }

    private void observeSlotTime(EngineSample sample) {
        if (sample.runningRequests().isEmpty() || sample.runningSeconds().isEmpty()) {
            // Skipped, the base kept, as for the prefill rate.
            return;
        }
        EngineSample base = slotTimeBase;
        if (base == null || wentDown(base, sample)) {
            slotTimeBase = sample;
            return;
        }
        double finished =
                delta(base.runningRequests(), sample.runningRequests()).getAsDouble();
        if (finished < MIN_REQUESTS) {
            return;
        }
        double seconds = delta(base.runningSeconds(), sample.runningSeconds()).getAsDouble();
        if (seconds > 0) {
            slotTime.observe(seconds / finished);
        }
        slotTimeBase = sample;
    }

    /** The measured prefill rate, once warm. */
    OptionalDouble prefillTokensPerSecond() {
        return prefill.value();
    }

    /** The measured time a request holds a slot, once warm. */
    OptionalDouble slotSeconds() {
        return slotTime.value();
    }

    /** The most sequences seen running at once (0 before any was reported). */
    double slotsSeen() {
        return slots;
    }

    /** The batch at the latest scrape; empty until {@code num_requests_running} was reported. */
    Optional<Occupancy> occupancy() {
        if (Double.isNaN(running)) {
            return Optional.empty();
        }
        return Optional.of(new Occupancy(running, Math.max(1, slots), saturated));
    }

    /** The capacity the engines' cache justifies, once reported. */
    OptionalInt capacity() {
        return capacity;
    }

    /**
     * The series the latest scrape lacked that an estimate asked for needs ({@code prefill}: the prefill rate,
     * {@code slotTime}: the queued-request cost, {@code cache}: the capacity), by their exposition names; the running
     * gauge only when {@code slotsConfigured} is false. Empty before the first scrape.
     */
    Set<String> missing(boolean prefillRate, boolean queuedCost, boolean cache, boolean slotsConfigured) {
        Set<String> missing = new TreeSet<>();
        EngineSample s = latest;
        if (s == null) {
            return missing;
        }
        if (prefillRate) {
            absent(missing, s.promptTokens(), EngineSeriesParser.PROMPT_TOKENS);
            absent(missing, s.cachedTokens(), EngineSeriesParser.CACHE_HITS);
            absent(missing, s.prefillSeconds(), EngineSeriesParser.PREFILL_SECONDS);
            if (COUNTS.stream().allMatch(series -> series.apply(s).isEmpty())) {
                missing.add(EngineSeriesParser.PREFILL_REQUESTS);
            }
        }
        if (queuedCost) {
            absent(missing, s.runningSeconds(), EngineSeriesParser.RUNNING_SECONDS);
            absent(missing, s.runningRequests(), EngineSeriesParser.RUNNING_REQUESTS);
            if (!slotsConfigured) {
                absent(missing, s.running(), EngineSeriesParser.RUNNING);
            }
        }
        if (cache) {
            absent(missing, s.cacheTokens(), EngineSeriesParser.CACHE_CONFIG);
        }
        return missing;
    }

    private static void absent(Set<String> missing, OptionalDouble value, String series) {
        if (value.isEmpty()) {
            missing.add(series);
        }
    }

    private static boolean wentDown(EngineSample before, EngineSample after) {
        return down(before.promptTokens(), after.promptTokens())
                || down(before.cachedTokens(), after.cachedTokens())
                || down(before.prefillSeconds(), after.prefillSeconds())
                || down(before.runningSeconds(), after.runningSeconds())
                || down(before.runningRequests(), after.runningRequests())
                || down(before.prefillRequests(), after.prefillRequests())
                || down(before.successRequests(), after.successRequests());
    }

    private static boolean down(OptionalDouble before, OptionalDouble after) {
        return before.isPresent() && after.isPresent() && after.getAsDouble() < before.getAsDouble();
    }

    static OptionalDouble delta(OptionalDouble before, OptionalDouble after) {
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
