package grid.gateway.sim;

/**
 * What one scrape of a simulated cluster's {@code /metrics} finds, as vLLM exports it: cumulative counters and
 * histogram sums since the cluster started, and gauges of the moment. The simulator fills it from its own service
 * model ({@link ClusterModel}), so every series is exactly what the model did; the gateway-fed policies receive one
 * per cluster at every scrape ({@link Policy#scraped}).
 *
 * <p>When each series moves (vLLM's timing): the token counters when the request's prefill is done (its first token),
 * the histograms and {@code request_success_total} when it finishes.
 *
 * <p>Thread-safe (immutable).
 *
 * @param nanos the scrape's time on the simulated clock
 * @param promptTokens {@code vllm:prompt_tokens_total}: prompt tokens of prefilled requests, cached or not
 * @param prefixCacheQueries {@code vllm:prefix_cache_queries_total}: tokens looked up in the prefix cache, as vLLM
 *     counts them: each prefilled request's prompt tokens and one more
 * @param prefixCacheHits {@code vllm:prefix_cache_hits_total}: of those, tokens found cached
 * @param prefillSecondsSum {@code vllm:request_prefill_time_seconds_sum}: each finished request's uncached tokens ÷
 *     the cluster's prefill rate (the time the FIFO prefill server spent on it)
 * @param prefillCount {@code vllm:request_prefill_time_seconds_count}
 * @param inferenceSecondsSum {@code vllm:request_inference_time_seconds_sum}: slot start to done, finished requests
 * @param inferenceCount {@code vllm:request_inference_time_seconds_count}
 * @param queueSecondsSum {@code vllm:request_queue_time_seconds_sum}: arrival at the cluster to slot start
 * @param queueCount {@code vllm:request_queue_time_seconds_count}
 * @param requestSuccess {@code vllm:request_success_total}: finished requests
 * @param running {@code vllm:num_requests_running}: requests holding a slot
 * @param waiting {@code vllm:num_requests_waiting}: the waiting line (the gateway's {@code queue_metric})
 * @param blockSize {@code vllm:cache_config_info{block_size}}: tokens a KV block
 * @param numGpuBlocks {@code vllm:cache_config_info{num_gpu_blocks}}: the prefix cache's capacity in blocks
 */
public record EngineSeries(
        long nanos,
        long promptTokens,
        long prefixCacheQueries,
        long prefixCacheHits,
        double prefillSecondsSum,
        long prefillCount,
        double inferenceSecondsSum,
        long inferenceCount,
        double queueSecondsSum,
        long queueCount,
        long requestSuccess,
        int running,
        int waiting,
        int blockSize,
        long numGpuBlocks) {}
