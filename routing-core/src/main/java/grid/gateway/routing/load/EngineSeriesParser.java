package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import java.util.OptionalDouble;

/**
 * Reads an {@link EngineSample} from a backend cluster's Prometheus exposition: the queue metric and the vLLM series
 * that calibration uses, each summed over its label sets with {@link PrometheusQueueParser}. A series the text lacks
 * stays empty. Never throws on any exposition.
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
                parser.sum(exposition, queueMetric),
                parser.sum(exposition, RUNNING),
                parser.sum(exposition, PROMPT_TOKENS),
                parser.sum(exposition, CACHE_HITS),
                parser.sum(exposition, PREFILL_SECONDS),
                parser.sum(exposition, RUNNING_SECONDS),
                parser.sum(exposition, RUNNING_REQUESTS),
                cache,
                parser.sum(exposition, PREFILL_REQUESTS),
                parser.sum(exposition, SUCCESS_REQUESTS));
    }
}
