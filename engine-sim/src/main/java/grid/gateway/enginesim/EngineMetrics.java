package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The simulator's {@code /metrics}: every {@code vllm:*} family of a real vLLM server's page, with its names, labels
 * and help texts ({@code testdata/vllm/metrics_after_probe.txt}, written by {@link Exposition}). The queue gauges
 * follow the simulated {@link EngineQueue} (through the {@link Frontend}, which may hide part of a backlog); a test
 * can force the waiting gauge. Families the simulator does not model (MFU estimates, external and multi-modal caches,
 * preemptions, sleep) are there with vLLM's idle values.
 *
 * <p>The series the gateway's {@code auto} calibration reads are exact for the simulator's own model
 * ({@link SimulatedEngine}), so calibration is tested against a known truth:
 *
 * <pre>
 *   vllm:prompt_tokens_total                  Σ prompt tokens (prefix_cache_queries_total: one more a request,
 *                                             as vLLM counts its lookups)
 *   vllm:prefix_cache_hits_total              Σ cached tokens (prompt_tokens_cached_total and
 *                                             prompt_tokens_by_source_total{source="local_cache_hit"}: the same)
 *   vllm:request_prefill_time_seconds         (prompt − cached) ÷ prefill rate, per request: the modeled prefill
 *   vllm:request_decode_time_seconds          (output tokens − 1) ÷ decode rate: the first token comes with the
 *                                             prefill; vllm:inter_token_latency_seconds has one gap for each later
 *                                             token and sums to it, as on vLLM's page
 *   vllm:request_inference_time_seconds       prefill + decode: the modeled time in a slot
 *   vllm:request_queue_time_seconds           the time the request waited for a slot (as it happened)
 *   vllm:time_to_first_token_seconds          queue + prefill;  vllm:e2e_request_latency_seconds: queue + inference
 *   vllm:cache_config_info                    block_size, num_gpu_blocks = the cache's blocks, num_cpu_blocks "None"
 *   vllm:kv_cache_usage_perc                  blocks held by running requests ÷ (num_gpu_blocks − 1): vLLM keeps
 *                                             one block back as its null block (cached free blocks count as free)
 * </pre>
 *
 * So Δ(prompt − hits) ÷ Δ prefill seconds is the prefill rate setting exactly. The histograms record a request
 * once its prefill is done, with the modeled durations (known then); vLLM records them when the request finishes,
 * so a scrape here may count a request still decoding. Under an instant pacer no time is spent, and the series
 * still report the modeled durations.
 *
 * <p>Thread-safe: adders, atomics and locked histograms.
 */
final class EngineMetrics {
    private final String model;
    private final EngineQueue queue;
    private final PrefixCache cache;
    private final EngineSettings settings;
    private final double createdSeconds;
    private final AtomicReference<OptionalInt> forcedWaiting = new AtomicReference<>(OptionalInt.empty());
    private final AtomicBoolean down = new AtomicBoolean();
    private final AtomicLong heldBlocks = new AtomicLong();
    private final LongAdder promptTokens = new LongAdder();
    private final LongAdder generationTokens = new LongAdder();
    private final LongAdder cacheHits = new LongAdder();
    private final LongAdder stopped = new LongAdder();
    private final LongAdder truncated = new LongAdder();
    private final LongAdder requests = new LongAdder();
    private final RequestHistograms histograms = new RequestHistograms();

    EngineMetrics(EngineSettings settings, EngineQueue queue, PrefixCache cache) {
        this.settings = requireNonNull(settings, "settings");
        this.model = settings.defaultModel();
        this.queue = requireNonNull(queue, "queue");
        this.cache = requireNonNull(cache, "cache");
        this.createdSeconds = settings.wallClock().millis() / 1000.0;
    }

    /** While {@code failing}, {@code /metrics} answers 503 (a pod whose exporter is down, or one restarting). */
    void failScrapes(boolean failing) {
        down.set(failing);
    }

    /** Whether {@code /metrics} answers 503 now. */
    boolean scrapesFail() {
        return down.get();
    }

    /** How long a scrape arriving now is held before it is answered: the {@link Frontend}'s stall, or zero. */
    Duration scrapeStall() {
        Frontend frontend = settings.frontend();
        return frontend.stalls(queue.waiting() + queue.running()) ? frontend.stall() : Duration.ZERO;
    }

    /** One request done with its prefill: what it used and how long each phase took, as the simulator models them. */
    void served(RequestHistograms.Served served) {
        Usage usage = served.usage();
        histograms.observe(served);
        promptTokens.add(usage.promptTokens());
        generationTokens.add(usage.outputTokens());
        cacheHits.add(usage.cachedTokens());
        requests.increment();
        (served.truncated() ? truncated : stopped).increment();
    }

    /** Counts {@code blocks} as held by a running request until the result runs (once; later runs do nothing). */
    Runnable hold(int blocks) {
        heldBlocks.addAndGet(blocks);
        AtomicBoolean released = new AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                heldBlocks.addAndGet(-blocks);
            }
        };
    }

    /** Makes {@code vllm:num_requests_waiting} report {@code depth}, or the simulated queue when empty. */
    void forceWaiting(OptionalInt depth) {
        forcedWaiting.set(requireNonNull(depth, "depth"));
    }

    /** What {@code vllm:num_requests_waiting} reports. */
    int waiting() {
        return forcedWaiting
                .get()
                .orElseGet(() -> settings.frontend().visibleWaiting(queue.waiting(), queue.running()));
    }

    /** The exposition, Prometheus text format 0.0.4, families in vLLM's order. */
    String exposition() {
        Exposition out = new Exposition(model, createdSeconds);
        out.counter("vllm:estimated_flops_per_gpu", VllmHelp.FLOPS, 0);
        out.counter("vllm:estimated_read_bytes_per_gpu", VllmHelp.READ_BYTES, 0);
        out.counter("vllm:estimated_write_bytes_per_gpu", VllmHelp.WRITE_BYTES, 0);
        out.gauge("vllm:num_requests_running", VllmHelp.RUNNING, queue.running());
        int waiting = waiting();
        out.gauge("vllm:num_requests_waiting", VllmHelp.WAITING, waiting);
        out.gauge(
                "vllm:num_requests_waiting_by_reason",
                VllmHelp.WAITING_BY_REASON,
                "reason",
                ordered("capacity", waiting, "deferred", 0));
        out.gauge(
                "vllm:engine_sleep_state",
                VllmHelp.SLEEP_STATE,
                "sleep_state",
                ordered("awake", 1, "weights_offloaded", 0, "discard_all", 0));
        out.gauge("vllm:kv_cache_usage_perc", VllmHelp.KV_USAGE, kvUsage());
        double prompt = (double) promptTokens.sum();
        double hits = (double) cacheHits.sum();
        // vLLM's lookups count one token more a request than its prompt (recorded: queries = prompt + requests).
        out.counter("vllm:prefix_cache_queries", VllmHelp.CACHE_QUERIES, prompt + requests.sum());
        out.counter("vllm:prefix_cache_hits", VllmHelp.CACHE_HITS, hits);
        out.counter("vllm:external_prefix_cache_queries", VllmHelp.EXTERNAL_QUERIES, 0);
        out.counter("vllm:external_prefix_cache_hits", VllmHelp.EXTERNAL_HITS, 0);
        out.counter("vllm:mm_cache_queries", VllmHelp.MM_QUERIES, 0);
        out.counter("vllm:mm_cache_hits", VllmHelp.MM_HITS, 0);
        out.counter("vllm:num_preemptions", VllmHelp.PREEMPTIONS, 0);
        out.counter("vllm:prompt_tokens", VllmHelp.PROMPT_TOKENS, prompt);
        out.counter(
                "vllm:prompt_tokens_by_source",
                VllmHelp.BY_SOURCE,
                "source",
                ordered("local_compute", prompt - hits, "local_cache_hit", hits, "external_kv_transfer", 0));
        out.counter("vllm:prompt_tokens_cached", VllmHelp.CACHED, hits);
        out.counter("vllm:generation_tokens", VllmHelp.GENERATION_TOKENS, (double) generationTokens.sum());
        out.counter("vllm:request_success", VllmHelp.SUCCESS, "finished_reason", successes());
        histograms.write(out);
        out.info("vllm:cache_config_info", VllmHelp.CACHE_CONFIG, CacheConfig.labels(settings));
        return out.text();
    }

    private double kvUsage() {
        // Of the usable blocks: vLLM holds one back as its null block (recorded: 4 one-block requests of 8192 blocks
        // show 4 / 8191).
        int usable = Math.max(1, cache.capacity() - 1);
        return cache.capacity() == 0 ? 0 : Math.min(1.0, (double) heldBlocks.get() / usable);
    }

    private Map<String, Double> successes() {
        Map<String, Double> reasons = new LinkedHashMap<>();
        reasons.put("stop", (double) stopped.sum());
        reasons.put("length", (double) truncated.sum());
        reasons.put("abort", 0.0);
        reasons.put("error", 0.0);
        reasons.put("repetition", 0.0);
        return reasons;
    }

    /** Label values and their numbers, in the order given (as vLLM lists them). */
    private static Map<String, Double> ordered(Object... pairs) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            values.put((String) pairs[i], ((Number) pairs[i + 1]).doubleValue());
        }
        return values;
    }
}
