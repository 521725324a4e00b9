package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import java.util.OptionalDouble;

/**
 * What one scrape of a backend cluster's {@code /metrics} said, in the series vLLM exports (each summed over the
 * exposition's label sets: engines and models). Counters are cumulative, as the engine reports them; a series the
 * exposition lacks is empty, and whatever uses it falls back to the configured value.
 *
 * <pre>
 *   waiting             load.queue_metric (default vllm:num_requests_waiting)     the queue depth (docs/design.md §6)
 *   running             vllm:num_requests_running                                  sequences in the batch
 *   promptTokens        vllm:prompt_tokens_total                                   prompt tokens, cached or not
 *   cachedTokens        vllm:prefix_cache_hits_total                               prompt tokens found cached
 *   prefillSeconds      vllm:request_prefill_time_seconds_sum                      time requests spent in prefill
 *   runningSeconds      vllm:request_inference_time_seconds_sum                    time requests held a slot
 *   runningRequests     vllm:request_inference_time_seconds_count                  requests that held one
 *   cacheTokens         vllm:cache_config_info (num_gpu_blocks + num_cpu_blocks) × block_size
 *   prefillRequests     vllm:request_prefill_time_seconds_count                    requests whose prefill is timed
 *   successRequests     vllm:request_success_total                                 requests that finished
 * </pre>
 *
 * <p>Engines (and vLLM versions) export different subsets: calibration counts finished requests from whichever of the
 * three count series a sample carries ({@code ClusterCalibration}).
 *
 * <p>Thread-safe (immutable). Every present value is finite.
 *
 * @param atNanos when the scrape was read, a monotonic clock reading
 * @param waiting the queue depth
 * @param running sequences running
 * @param promptTokens prompt tokens processed, cumulative
 * @param cachedTokens prompt tokens served from the prefix cache, cumulative
 * @param prefillSeconds seconds spent in prefill, cumulative over requests
 * @param runningSeconds seconds spent running (prefill and decode), cumulative over requests
 * @param runningRequests requests that finished running, cumulative
 * @param cacheTokens KV cache the engines hold, in tokens (GPU and CPU offload)
 * @param prefillRequests requests whose prefill time was observed, cumulative
 * @param successRequests requests that finished, cumulative (every finish reason)
 */
public record EngineSample(
        long atNanos,
        OptionalDouble waiting,
        OptionalDouble running,
        OptionalDouble promptTokens,
        OptionalDouble cachedTokens,
        OptionalDouble prefillSeconds,
        OptionalDouble runningSeconds,
        OptionalDouble runningRequests,
        OptionalDouble cacheTokens,
        OptionalDouble prefillRequests,
        OptionalDouble successRequests) {

    public EngineSample {
        for (OptionalDouble value : new OptionalDouble[] {
            waiting,
            running,
            promptTokens,
            cachedTokens,
            prefillSeconds,
            runningSeconds,
            runningRequests,
            cacheTokens,
            prefillRequests,
            successRequests
        }) {
            requireNonNull(value, "series");
            if (value.isPresent() && !Double.isFinite(value.getAsDouble())) {
                throw new IllegalArgumentException("series value: " + value + " (expected: finite)");
            }
        }
    }

    /** A sample without the count series of prefill times and successes (the series calibration used first). */
    // The record's components but the last two, which this leaves empty.
    @SuppressWarnings("checkstyle:parameternumber")
    public EngineSample(
            long atNanos,
            OptionalDouble waiting,
            OptionalDouble running,
            OptionalDouble promptTokens,
            OptionalDouble cachedTokens,
            OptionalDouble prefillSeconds,
            OptionalDouble runningSeconds,
            OptionalDouble runningRequests,
            OptionalDouble cacheTokens) {
        this(
                atNanos,
                waiting,
                running,
                promptTokens,
                cachedTokens,
                prefillSeconds,
                runningSeconds,
                runningRequests,
                cacheTokens,
                OptionalDouble.empty(),
                OptionalDouble.empty());
    }

    /** Whether the sample carries none of the series: its page was no engine's (an error page, a placeholder). */
    public boolean carriesNothing() {
        return waiting.isEmpty()
                && running.isEmpty()
                && promptTokens.isEmpty()
                && cachedTokens.isEmpty()
                && prefillSeconds.isEmpty()
                && runningSeconds.isEmpty()
                && runningRequests.isEmpty()
                && cacheTokens.isEmpty()
                && prefillRequests.isEmpty()
                && successRequests.isEmpty();
    }

    /** A sample that carries only a queue depth, as the seed's scraper read it. */
    public static EngineSample queueOnly(long atNanos, double waiting) {
        OptionalDouble none = OptionalDouble.empty();
        return new EngineSample(atNanos, OptionalDouble.of(waiting), none, none, none, none, none, none, none);
    }
}
