package grid.gateway.sim;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The simulated grid: its clusters' service models, and the routing core's {@link Grid} describing the same
 * clusters in the same order (index {@code i} of one is index {@code i} of the other).
 *
 * <p>Thread-safe (immutable).
 *
 * <p>Every grid's engine caches hold less than the gateway's default memory remembers (16,384 entries of 256 bytes
 * a cluster, about 1M tokens), so the gateway's entries go stale: the engines evict what it still believes. Replayed
 * traces of long prompts get {@link #withCacheTokens larger caches} (see {@link #TRACE_CACHE_TOKENS}).
 *
 * @param name the grid's name in reports ({@code slow}, {@code fast}, {@code mixed})
 * @param clusters the clusters' service models
 */
public record SimGrid(String name, List<ClusterModel> clusters, EngineModel engines) {
    /** Names of the grids of the report, in report order. */
    public static final List<String> NAMES = List.of("slow", "fast", "mixed", "vllm");

    /**
     * The engine cache of every cluster when a replayed trace runs: 2M tokens, as the engines of the held-out
     * production trace (docs/routing-sim.md). Mooncake prompts average 15k tokens, so the 192k–768k of the synthetic grids
     * would hold a dozen prompts; 2M holds about 130. Here the gateway's default memory (~1M tokens) is the smaller.
     */
    public static final int TRACE_CACHE_TOKENS = 2_000_000;

    public SimGrid {
        requireNonNull(name, "name");
        requireNonNull(engines, "engines");
        clusters = List.copyOf(clusters);
        if (clusters.size() < 2) {
            throw new IllegalArgumentException("a grid to route over needs two clusters or more");
        }
    }

    /** A grid of engines that are the router's twin ({@link EngineModel#TWIN}). */
    public SimGrid(String name, List<ClusterModel> clusters) {
        this(name, clusters, EngineModel.TWIN);
    }

    /** An unnamed grid ({@code custom}), for tests. */
    public SimGrid(List<ClusterModel> clusters) {
        this("custom", clusters);
    }

    /** The grid named {@code name}: one of {@link #NAMES}. */
    public static SimGrid named(String name) {
        return switch (name) {
            case "slow" -> slow();
            case "fast" -> fast();
            case "mixed" -> mixed();
            case "vllm" -> vllm();
            default -> throw new IllegalArgumentException("unknown grid " + name + " (expected one of " + NAMES + ")");
        };
    }

    /** The grid of the first routing-quality report, {@link #slow()}. */
    public static SimGrid standard() {
        return slow();
    }

    /**
     * The {@code slow} grid (the first report's, docs/routing-sim.md): three sites of two clusters each, of three sizes (prefill 2k, 3k and 4k tokens
     * a second, with slots in proportion and 24k tokens of prefix cache a slot: 192k–384k), every sequence decoding 40
     * tokens a second.
     */
    public static SimGrid slow() {
        return new SimGrid(
                "slow",
                List.of(
                        slowCluster("east", "east-a", 12),
                        slowCluster("east", "east-b", 12),
                        slowCluster("west", "west-a", 16),
                        slowCluster("west", "west-b", 8),
                        slowCluster("north", "north-a", 12),
                        slowCluster("north", "north-b", 8)));
    }

    /**
     * The {@code fast} grid: H100-class clusters, prefill 10k, 15k and 20k tokens a second with 16, 24 and 32 slots,
     * 60 tokens a second of decode per sequence, 24k tokens of prefix cache a slot (384k–768k, still below the
     * gateway's ~1M).
     */
    public static SimGrid fast() {
        return new SimGrid(
                "fast",
                List.of(
                        fastCluster("east", "east-a", 24),
                        fastCluster("east", "east-b", 24),
                        fastCluster("west", "west-a", 32),
                        fastCluster("west", "west-b", 16),
                        fastCluster("north", "north-a", 24),
                        fastCluster("north", "north-b", 16)));
    }

    /** The {@code mixed} grid: site east fast, site north slow, site west one of each. */
    public static SimGrid mixed() {
        return new SimGrid(
                "mixed",
                List.of(
                        fastCluster("east", "east-a", 24),
                        fastCluster("east", "east-b", 24),
                        fastCluster("west", "west-a", 32),
                        slowCluster("west", "west-b", 8),
                        slowCluster("north", "north-a", 12),
                        slowCluster("north", "north-b", 8)));
    }

    /**
     * The {@code vllm} grid: engines that are not the router's twin. The fast grid's clusters (prefill 10k–20k tokens a
     * second, 60 tokens a second of decode a sequence, the same 384k–768k tokens of prefix cache, below the gateway's
     * memory), each with vLLM's default batch limit of 256 sequences ({@code --max-num-seqs}), so a line almost never
     * forms and the engines run a small share of slots nobody told the gateway; load shows only in the prefill they
     * queue. Their {@code /metrics} lacks {@code vllm:request_inference_time_seconds} and their usage says nothing for
     * 0 cached tokens ({@link EngineModel#VLLM}).
     */
    public static SimGrid vllm() {
        return new SimGrid(
                "vllm",
                List.of(
                        vllmCluster("east", "east-a", 24),
                        vllmCluster("east", "east-b", 24),
                        vllmCluster("west", "west-a", 32),
                        vllmCluster("west", "west-b", 16),
                        vllmCluster("north", "north-a", 24),
                        vllmCluster("north", "north-b", 16)),
                EngineModel.VLLM);
    }

    /** This grid with every cluster's prefix cache set to {@code cacheTokens}. */
    public SimGrid withCacheTokens(int cacheTokens) {
        return new SimGrid(
                name,
                clusters.stream()
                        .map(c -> new ClusterModel(
                                c.site(),
                                c.name(),
                                c.slots(),
                                c.prefillTokensPerSecond(),
                                c.decodeTokensPerSecond(),
                                cacheTokens))
                        .toList(),
                engines);
    }

    private static ClusterModel slowCluster(String site, String name, int slots) {
        return new ClusterModel(site, name, slots, slots * 250.0, 40, slots * 24_000);
    }

    private static ClusterModel fastCluster(String site, String name, int slots) {
        return new ClusterModel(site, name, slots, slots * 625.0, 60, slots * 24_000);
    }

    /** A fast cluster of {@code size} (its prefill rate and cache) that runs up to 256 sequences at once. */
    private static ClusterModel vllmCluster(String site, String name, int size) {
        return new ClusterModel(site, name, VLLM_MAX_NUM_SEQS, size * 625.0, 60, size * 24_000);
    }

    /** vLLM's default {@code --max-num-seqs}. */
    static final int VLLM_MAX_NUM_SEQS = 256;

    /** The routing core's view: every cluster serves {@link TraceGenerator#MODEL}; the replica sits at site 0's. */
    public Grid routingGrid() {
        List<BackendCluster> backends = clusters.stream()
                .map(c -> new BackendCluster(
                        new ClusterId(new SiteName(c.site()), c.name()),
                        URI.create("http://" + c.name() + ".invalid"),
                        Set.of(TraceGenerator.MODEL),
                        Optional.empty(),
                        OptionalInt.empty(),
                        false))
                .toList();
        return Grid.of(new SiteName(clusters.getFirst().site()), backends);
    }

    /**
     * The request rate the grid sustains on {@code trace} when every request's prefill is only the tokens no earlier
     * request shared (an infinite cache and perfect routing, the most any policy can save): the sum over clusters of
     * the smaller of the prefill bound and the slot bound ({@link ClusterModel#capacity}).
     */
    public double capacity(Trace trace) {
        requireNonNull(trace, "trace");
        return clusters.stream()
                .mapToDouble(c -> c.capacity(trace.meanIdealUncachedTokens(), trace.meanOutputTokens()))
                .sum();
    }
}
