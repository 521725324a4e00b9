package grid.gateway.sim;

import java.util.List;

/**
 * A gateway-fed policy whose router is told each cluster's true slot count ({@link SimCause#UNKNOWN_SLOTS} switched
 * off): at a cluster's first scrape it first sees the same series with the slots as the running count, then the real
 * one. The router learns slots as the most sequences it has seen running, so they equal the truth from then on; the
 * counters of the two series are the same, so nothing else it learns changes. vLLM exports no {@code max_num_seqs}:
 * this stands for an operator's per-cluster batch limit, or for {@code vllm:kv_cache_usage_perc} where KV memory
 * limits the batch.
 *
 * <p>Not thread-safe; one per run.
 */
final class SlotsTold implements Policy {
    private final Policy policy;
    private final List<Integer> slots;
    private final boolean[] told;

    /** {@code policy}, told {@code slots}: the clusters' true slot counts in grid order. */
    SlotsTold(Policy policy, List<Integer> slots) {
        this.policy = policy;
        this.slots = List.copyOf(slots);
        this.told = new boolean[slots.size()];
    }

    @Override
    public String name() {
        return policy.name();
    }

    @Override
    public void choose(Flight flight, List<SimCluster> clusters) {
        policy.choose(flight, clusters);
    }

    @Override
    public void scraped(int cluster, EngineSeries series) {
        if (!told[cluster]) {
            told[cluster] = true;
            policy.scraped(cluster, withRunning(series, slots.get(cluster)));
        }
        policy.scraped(cluster, series);
    }

    @Override
    public void answered(Flight flight, int status) {
        policy.answered(flight, status);
    }

    @Override
    public void finished(Flight flight) {
        policy.finished(flight);
    }

    private static EngineSeries withRunning(EngineSeries s, int running) {
        return new EngineSeries(
                s.nanos(),
                s.promptTokens(),
                s.prefixCacheQueries(),
                s.prefixCacheHits(),
                s.prefillSecondsSum(),
                s.prefillCount(),
                s.inferenceSecondsSum(),
                s.inferenceCount(),
                s.queueSecondsSum(),
                s.queueCount(),
                s.requestSuccess(),
                running,
                s.waiting(),
                s.blockSize(),
                s.numGpuBlocks());
    }
}
