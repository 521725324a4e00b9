package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import java.util.OptionalDouble;

/**
 * Reads an {@link EngineSample} from a backend cluster's Prometheus exposition: the queue metric and the vLLM series
 * that calibration uses, each summed over its label sets with {@link PrometheusQueueParser}. A series the text lacks
 * stays empty. Every series read is a count (requests, tokens, blocks) or a sum of seconds, so a sample that can be
 * none (below 0, above {@link PrometheusQueueParser#MAX_COUNT}) is ignored ({@link PrometheusQueueParser#sumOfCounts}):
 * a negative queue depth would order its cluster before every empty one, and numbers near the double's range would
 * sum past it over pods or rounds. Never throws on any exposition.
 *
 * <p>Cost: one linear pass per series (ten), each as cheap as the seed's single queue-metric pass; expositions
 * are read at most once per poll interval per cluster.
 *
 * <p>Thread-safe and stateless.
 */
public final class EngineSeriesParser {
    /** vLLM's running-sequences gauge. */
    public static final String RUNNING = "vllm:num_requests_running";
    /** vLLM's prompt-token counter. */
    public static final String PROMPT_TOKENS = "vllm:prompt_tokens_total";
    /** vLLM's prefix-cache hit counter, in tokens. */
    public static final String CACHE_HITS = "vllm:prefix_cache_hits_total";
    /** vLLM's histogram of time in the PREFILL phase: its sum. */
    public static final String PREFILL_SECONDS = "vllm:request_prefill_time_seconds_sum";
    /** vLLM's histogram of time in the RUNNING phase: its sum. */
    public static final String RUNNING_SECONDS = "vllm:request_inference_time_seconds_sum";
    /** vLLM's histogram of time in the RUNNING phase: its count. */
    public static final String RUNNING_REQUESTS = "vllm:request_inference_time_seconds_count";
    /** vLLM's histogram of time in the PREFILL phase: its count. */
    public static final String PREFILL_REQUESTS = "vllm:request_prefill_time_seconds_count";
    /** vLLM's count of finished requests, by finish reason. */
    public static final String SUCCESS_REQUESTS = "vllm:request_success_total";
    /** vLLM's cache configuration, carried as labels. */
    public static final String CACHE_CONFIG = "vllm:cache_config_info";

    private final PrometheusQueueParser parser = new PrometheusQueueParser();

    /** A parser. */
    public EngineSeriesParser() {}

    /** The sample in {@code exposition}, read at {@code atNanos}, with {@code queueMetric} as its queue depth. */
    public EngineSample parse(String exposition, String queueMetric, long atNanos) {
        requireNonNull(exposition, "exposition");
        requireNonNull(queueMetric, "queueMetric");
        OptionalDouble gpu = parser.sumOfLabelProducts(exposition, CACHE_CONFIG, "num_gpu_blocks", "block_size");
        OptionalDouble cpu = parser.sumOfLabelProducts(exposition, CACHE_CONFIG, "num_cpu_blocks", "block_size");
        OptionalDouble cache =
                gpu.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(gpu.getAsDouble() + cpu.orElse(0));
        return new EngineSample(
                atNanos,
                parser.sumOfCounts(exposition, queueMetric),
                parser.sumOfCounts(exposition, RUNNING),
                parser.sumOfCounts(exposition, PROMPT_TOKENS),
                parser.sumOfCounts(exposition, CACHE_HITS),
                parser.sumOfCounts(exposition, PREFILL_SECONDS),
                parser.sumOfCounts(exposition, RUNNING_SECONDS),
                parser.sumOfCounts(exposition, RUNNING_REQUESTS),
                cache,
                parser.sumOfCounts(exposition, PREFILL_REQUESTS),
                parser.sumOfCounts(exposition, SUCCESS_REQUESTS));
    }
}
