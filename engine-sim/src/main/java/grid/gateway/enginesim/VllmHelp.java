package grid.gateway.enginesim;

/**
 * The help texts of vLLM's {@code /metrics} families, word for word as a vLLM server writes them
 * ({@code testdata/vllm/metrics_after_probe.txt}).
 *
 * <p>Constants only.
 */
final class VllmHelp {
    static final String FLOPS =
            "Estimated number of floating point operations per GPU (for Model Flops Utilization calculations).";
    static final String READ_BYTES =
            "Estimated number of bytes read from memory per GPU (for Model Flops Utilization calculations).";
    static final String WRITE_BYTES =
            "Estimated number of bytes written to memory per GPU (for Model Flops Utilization calculations).";
    static final String RUNNING = "Number of requests in model execution batches.";
    static final String WAITING = "Number of requests waiting to be processed.";
    static final String WAITING_BY_REASON = "Number of waiting requests by reason. Reason labels: 'capacity' = waiting"
            + " for scheduling capacity; 'deferred' = deferred by transient constraints (LoRA budget, KV transfer,"
            + " blocked status). Sum of all reasons equals vllm:num_requests_waiting.";
    static final String SLEEP_STATE = "Engine sleep state; awake = 0 means engine is sleeping; awake = 1 means engine"
            + " is awake; weights_offloaded = 1 means sleep level 1; discard_all = 1 means sleep level 2.";
    static final String KV_USAGE = "KV-cache usage. 1 means 100 percent usage.";
    static final String CACHE_QUERIES = "Prefix cache queries, in terms of number of queried tokens.";
    static final String CACHE_HITS = "Prefix cache hits, in terms of number of cached tokens.";
    static final String EXTERNAL_QUERIES = "External prefix cache queries from KV connector cross-instance cache"
            + " sharing, in terms of number of queried tokens.";
    static final String EXTERNAL_HITS = "External prefix cache hits from KV connector cross-instance cache sharing,"
            + " in terms of number of cached tokens.";
    static final String MM_QUERIES = "Multi-modal cache queries, in terms of number of queried items.";
    static final String MM_HITS = "Multi-modal cache hits, in terms of number of cached items.";
    static final String PREEMPTIONS = "Cumulative number of preemption from the engine.";
    static final String PROMPT_TOKENS = "Number of prefill tokens processed.";
    static final String BY_SOURCE = "Number of prompt tokens by source.";
    static final String CACHED = "Number of cached prompt tokens (local + external).";
    static final String GENERATION_TOKENS = "Number of generation tokens processed.";
    static final String SUCCESS = "Count of successfully processed requests.";
    static final String ITERATION_TOKENS = "Histogram of number of tokens per engine_step.";
    static final String MAX_GENERATION_TOKENS = "Histogram of maximum number of requested generation tokens.";
    static final String PARAMS_N = "Histogram of the n request parameter.";
    static final String PARAMS_MAX_TOKENS = "Histogram of the max_tokens request parameter.";
    static final String FIRST_TOKEN = "Histogram of time to first token in seconds.";
    static final String INTER_TOKEN = "Histogram of inter-token latency in seconds.";
    static final String PER_OUTPUT_TOKEN = "Histogram of time_per_output_token_seconds per request.";
    static final String E2E = "Histogram of e2e request latency in seconds.";
    static final String QUEUE_TIME = "Histogram of time spent in WAITING phase for request.";
    static final String INFERENCE_TIME = "Histogram of time spent in RUNNING phase for request.";
    static final String PREFILL_TIME = "Histogram of time spent in PREFILL phase for request.";
    static final String DECODE_TIME = "Histogram of time spent in DECODE phase for request.";
    static final String PREFILL_KV_COMPUTED =
            "Histogram of new KV tokens computed during prefill (excluding cached tokens).";
    static final String CACHE_CONFIG = "Information of the LLMEngine CacheConfig";

    private VllmHelp() {}
}
