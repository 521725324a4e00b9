package grid.gateway.enginesim;

import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The labels of {@code vllm:cache_config_info}: every label a vLLM server writes
 * ({@code testdata/vllm/metrics_after_probe.txt}), with the simulator's cache in {@code block_size} and
 * {@code num_gpu_blocks}. {@code num_cpu_blocks} is the string {@code None}, as vLLM writes it when nothing is
 * offloaded; the gauge carries {@code engine} but no {@code model_name}.
 *
 * <p>Stateless and thread-safe.
 */
final class CacheConfig {
    /** Bytes of KV cache a token holds, for {@code kv_cache_memory_bytes} (the recorded tiny model's figure). */
    static final long BYTES_PER_TOKEN = 1024;

    private CacheConfig() {}

    static SortedMap<String, String> labels(EngineSettings settings) {
        SortedMap<String, String> labels = new TreeMap<>();
        labels.put("_block_size_resolved", "True");
        labels.put("block_size", Integer.toString(settings.blockSize()));
        labels.put("cache_dtype", "auto");
        labels.put("calculate_kv_scales", "False");
        labels.put("enable_prefix_caching", settings.cacheBlocks() > 0 ? "True" : "False");
        labels.put("engine", "0");
        labels.put("gpu_memory_utilization", "0.92");
        labels.put("hash_block_size", "None");
        labels.put("is_attention_free", "False");
        labels.put("kv_cache_dtype_skip_layers", "[]");
        labels.put(
                "kv_cache_memory_bytes",
                Long.toString((long) settings.cacheBlocks() * settings.blockSize() * BYTES_PER_TOKEN));
        labels.put("kv_offloading_backend", "native");
        labels.put("kv_offloading_size", "None");
        labels.put("kv_sharing_fast_prefill", "False");
        labels.put("mamba_block_size", "None");
        labels.put("mamba_cache_dtype", "auto");
        labels.put("mamba_cache_mode", "none");
        labels.put("mamba_page_size_padded", "None");
        labels.put("mamba_ssm_cache_dtype", "auto");
        labels.put("num_cpu_blocks", "None");
        labels.put("num_gpu_blocks", Integer.toString(settings.cacheBlocks()));
        labels.put("num_gpu_blocks_override", "None");
        labels.put("prefix_caching_hash_algo", "sha256");
        labels.put("sliding_window", "None");
        labels.put("user_specified_block_size", "False");
        labels.put("user_specified_mamba_block_size", "False");
        return labels;
    }
}
