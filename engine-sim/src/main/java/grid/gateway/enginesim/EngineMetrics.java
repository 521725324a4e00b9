package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The simulator's {@code /metrics}: Prometheus text with vLLM's names and labels (docs/design.md §A6.2), one series
 * per metric labelled {@code engine="0"} and the first served model, as vLLM labels every series with its first
 * served model name. The queue gauges follow the simulated {@link EngineQueue}; a test can force the waiting gauge.
 *
 * <p>The series the gateway's {@code auto} calibration reads are exact for the simulator's own model
 * ({@link SimulatedEngine}), so calibration is tested against a known truth:
 *
 * <pre>
 *   vllm:prompt_tokens_total                  Σ prompt tokens
 *   vllm:prefix_cache_hits_total              Σ cached tokens (the prefix cache's hit)
 *   vllm:request_prefill_time_seconds         (prompt − cached) ÷ prefill rate, per request: the modeled prefill
 *   vllm:request_inference_time_seconds       prefill + output tokens ÷ decode rate: the modeled time in a slot
 *   vllm:request_queue_time_seconds           the time the request waited for a slot (as it happened)
 *   vllm:cache_config_info                    block_size 16, num_gpu_blocks = the cache's blocks, num_cpu_blocks 0
 * </pre>
 *
 * So Δ(prompt − hits) ÷ Δ prefill seconds is the prefill rate setting exactly. The histograms record a request
 * once its prefill is done, with the modeled durations (known then); vLLM records them when the request finishes,
 * so a scrape here may count a request still decoding. Under an instant pacer no time is spent, and the series
 * still report the modeled durations.
 *
 * <p>Thread-safe: adders and an atomic reference.
 */
final class EngineMetrics {
    private final String labels;
    private final EngineQueue queue;
    private final PrefixCache cache;
    private final AtomicReference<OptionalInt> forcedWaiting = new AtomicReference<>(OptionalInt.empty());
    private final AtomicBoolean down = new AtomicBoolean();
    private final LongAdder promptTokens = new LongAdder();
    private final LongAdder generationTokens = new LongAdder();
    private final LongAdder cacheQueries = new LongAdder();
    private final LongAdder cacheHits = new LongAdder();
    private final LongAdder requests = new LongAdder();
    private final SecondsHistogram prefillTime = new SecondsHistogram(
            "vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.");
    private final SecondsHistogram inferenceTime = new SecondsHistogram(
            "vllm:request_inference_time_seconds", "Histogram of time spent in RUNNING phase for request.");
    private final SecondsHistogram queueTime = new SecondsHistogram(
            "vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.");

    /** While {@code failing}, {@code /metrics} answers 503 (a pod whose exporter is down, or one restarting). */
    void failScrapes(boolean failing) {
        down.set(failing);
    }

    /** Whether {@code /metrics} answers 503 now. */
    boolean scrapesFail() {
        return down.get();
    }

    EngineMetrics(String model, EngineQueue queue, PrefixCache cache) {
        this.labels = "{engine=\"0\",model_name=\"" + escape(requireNonNull(model, "model")) + "\"}";
        this.queue = requireNonNull(queue, "queue");
        this.cache = requireNonNull(cache, "cache");
    }

    /**
     * One request done with its prefill: its usage, and the seconds it waited for a slot, spent in prefill, and will
     * hold its slot (prefill and decode), as the simulator models them.
     */
    void served(Usage usage, RequestSeconds seconds) {
        queueTime.observe(seconds.queued());
        prefillTime.observe(seconds.prefill());
        inferenceTime.observe(seconds.running());
        promptTokens.add(usage.promptTokens());
        generationTokens.add(usage.outputTokens());
        cacheQueries.add(usage.promptTokens());
        cacheHits.add(usage.cachedTokens());
        requests.increment();
    }

    /**
     * The seconds of one request.
     *
     * @param queued waiting for a slot
     * @param prefill computing its uncached prompt tokens
     * @param running holding its slot: prefill and decode
     */
    record RequestSeconds(double queued, double prefill, double running) {}

    /** Makes {@code vllm:num_requests_waiting} report {@code depth}, or the simulated queue when empty. */
    void forceWaiting(OptionalInt depth) {
        forcedWaiting.set(requireNonNull(depth, "depth"));
    }

    /** What {@code vllm:num_requests_waiting} reports. */
    int waiting() {
        return forcedWaiting.get().orElseGet(queue::waiting);
    }

    /** The exposition, Prometheus text format 0.0.4. */
    String exposition() {
        StringBuilder out = new StringBuilder(2048);
        gauge(out, "vllm:num_requests_running", "Number of requests in model execution batches.", queue.running());
        gauge(out, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", waiting());
        gauge(
                out,
                "vllm:kv_cache_usage_perc",
                "KV-cache usage. 1 means 100 percent usage.",
                cache.capacity() == 0 ? 0 : (double) cache.size() / cache.capacity());
        counter(
                out,
                "vllm:prefix_cache_queries",
                "Prefix cache queries, in terms of number of queried tokens.",
                cacheQueries);
        counter(out, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.", cacheHits);
        counter(out, "vllm:prompt_tokens", "Number of prefill tokens processed.", promptTokens);
        counter(out, "vllm:generation_tokens", "Number of generation tokens processed.", generationTokens);
        counter(out, "vllm:request_success", "Count of successfully processed requests.", requests);
        String inner = labels.substring(1, labels.length() - 1);
        prefillTime.write(out, inner);
        inferenceTime.write(out, inner);
        queueTime.write(out, inner);
        out.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n");
        out.append("# TYPE vllm:cache_config_info gauge\n");
        out.append("vllm:cache_config_info{block_size=\"")
                .append(PrefixCache.BLOCK_TOKENS)
                .append("\",cache_dtype=\"auto\",enable_prefix_caching=\"True\",engine=\"0\",num_cpu_blocks=\"0\",")
                .append("num_gpu_blocks=\"")
                .append(cache.capacity())
                .append("\"} 1.0\n");
        return out.toString();
    }

    private void gauge(StringBuilder out, String name, String help, double value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" gauge\n");
        out.append(name).append(labels).append(' ').append(number(value)).append('\n');
    }

    private void counter(StringBuilder out, String name, String help, LongAdder value) {
        out.append("# HELP ").append(name).append("_total ").append(help).append('\n');
        out.append("# TYPE ").append(name).append("_total counter\n");
        out.append(name)
                .append("_total")
                .append(labels)
                .append(' ')
                .append(number(value.sum()))
                .append('\n');
    }

    /** As vLLM's Python client writes floats: {@code 2.0}, {@code 0.25}. */
    private static String number(double value) {
        return Double.toString(value);
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
