package grid.gateway.routing.prefix;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.time.MonotonicClock;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Which block keys this replica sent to each backend cluster and saw confirmed (docs/design.md §6; the seed's "What it
 * remembers"): one {@link ClusterLru} per cluster, so traffic to one cluster cannot evict another's entries.
 *
 * <ul>
 *   <li>A block counts toward a match only once the cluster answered 2xx ({@link #confirm}); a 429 or 5xx answer
 *       forgets the request's blocks there ({@link #drop}).
 *   <li>An entry's deadline is set at confirmation to now + the TTL then in force, so a TTL change applies only to
 *       later confirmations.
 *   <li>{@link #reconfigure} resizes existing LRUs (shrinking evicts the least recent), gives new clusters the
 *       current capacity, and frees the memory of clusters that left the grid.
 * </ul>
 *
 * <p>Thread-safe: the map of LRUs is concurrent, each LRU locks itself, settings are read from a volatile field.
 */
public final class PrefixMemory {
    private final ConcurrentHashMap<ClusterId, ClusterLru> lrus = new ConcurrentHashMap<>();
    /** Per-cluster capacities measured from the engines ({@code capacity: auto}); others use the setting. */
    private final ConcurrentHashMap<ClusterId, Integer> measuredCapacity = new ConcurrentHashMap<>();
    /** Per-cluster usage horizons ({@code learn_from_usage}). */
    private final ConcurrentHashMap<ClusterId, UsageHorizon> horizons = new ConcurrentHashMap<>();
    /** Which clusters report cached tokens on which API: how a usage without a count is read. */
    private final CachedTokenReporters reporters = new CachedTokenReporters();

    private final MonotonicClock clock;
    private final long hashSalt;
    private volatile PrefixAffinitySettings settings;
    private volatile MemorySharing sharing = MemorySharing.NONE;

    /**
     * An empty memory.
     *
     * @param settings capacity and TTL
     * @param clock the monotonic clock deadlines run on
     * @param hashSalt a secret random value that places keys in the index, so crafted prompts cannot collide there
     */
    public PrefixMemory(PrefixAffinitySettings settings, MonotonicClock clock, long hashSalt) {
        this.settings = requireNonNull(settings, "settings");
        this.clock = requireNonNull(clock, "clock");
        this.hashSalt = hashSalt;
    }

    /** Applies a new grid and settings: keeps only {@code clusters}, resizing or creating their LRUs. */
    public void reconfigure(Set<ClusterId> clusters, PrefixAffinitySettings newSettings) {
        requireNonNull(clusters, "clusters");
        this.settings = requireNonNull(newSettings, "newSettings");
        lrus.keySet().retainAll(clusters);
        measuredCapacity.keySet().retainAll(clusters);
        horizons.keySet().retainAll(clusters);
        reporters.retain(clusters);
        if (!newSettings.learnFromUsage()) {
            horizons.clear();
        }
        for (ClusterId cluster : clusters) {
            int capacity = capacityOf(cluster, newSettings);
            lrus.compute(cluster, (id, lru) -> {
                if (lru == null) {
                    return new ClusterLru(capacity, hashSalt);
                }
                lru.resize(capacity);
                if (!newSettings.learnFromUsage()) {
                    lru.horizon(Long.MAX_VALUE);
                }
                return lru;
            });
        }
    }

    /**
     * The capacity {@code cluster}'s engines justify ({@code capacity: auto}): resizes its LRU when the setting asks
     * for measured capacities; remembered for later reloads either way.
     */
    public void measuredCapacity(ClusterId cluster, int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
        }
        Integer previous = measuredCapacity.put(cluster, capacity);
        PrefixAffinitySettings current = settings;
        ClusterLru lru = lrus.get(cluster);
        if (lru != null && current.auto().capacity() && (previous == null || previous != capacity)) {
            lru.resize(capacity);
        }
    }

    /** The capacity in force for {@code cluster}: measured under {@code capacity: auto}, else the setting. */
    public int capacity(ClusterId cluster) {
        return capacityOf(cluster, settings);
    }

    private int capacityOf(ClusterId cluster, PrefixAffinitySettings in) {
        Integer measured = in.auto().capacity() ? measuredCapacity.get(cluster) : null;
        return measured == null ? in.capacity() : measured;
    }

    /**
     * What the memory holds of {@code keys} at {@code cluster} now, for checking the answer's reported cached tokens
     * later ({@code learn_from_usage}); {@link RunEvidence#NONE} when that is off.
     */
    public RunEvidence evidence(ClusterId cluster, BlockKeys keys) {
        ClusterLru lru = lrus.get(cluster);
        if (lru == null || keys.isEmpty() || !settings.learnFromUsage()) {
            return RunEvidence.NONE;
        }
        long now = clock.nanoTime();
        return new RunEvidence(now, lru.confirmations(keys, now));
    }

    /**
     * An answer from {@code cluster} reported {@code cachedTokens} for a request routed with {@code evidence}: moves
     * the cluster's usage horizon ({@link UsageHorizon}). Does nothing unless {@code learn_from_usage} is on.
     */
    public void usageReported(ClusterId cluster, RunEvidence evidence, long cachedTokens) {
        ClusterLru lru = lrus.get(cluster);
        if (lru == null || evidence.blocks() == 0 || !settings.learnFromUsage()) {
            return;
        }
        UsageHorizon horizon = horizons.computeIfAbsent(cluster, id -> new UsageHorizon());
        long nanos;
        synchronized (horizon) {
            nanos = horizon.learn(evidence, cachedTokens);
        }
        lru.horizon(nanos);
    }

    /**
     * An answer from {@code cluster} to a request routed with {@code evidence} carried {@code report}: returns the
     * cached tokens it stands for ({@link CachedTokenReporters}: a usage without a count is 0 from a cluster known to
     * report on that API, nothing otherwise), and learns from them as {@link #usageReported(ClusterId, RunEvidence,
     * long)} does. Silence from a cluster not known to report teaches nothing.
     */
    public OptionalLong usageReported(ClusterId cluster, RunEvidence evidence, UsageReport report) {
        OptionalLong read = reporters.read(cluster, report);
        if (read.isPresent()) {
            usageReported(cluster, evidence, read.getAsLong());
        }
        return read;
    }

    /** The usage horizon of {@code cluster} in nanoseconds; {@code Long.MAX_VALUE} when none was learned. */
    public long horizonNanos(ClusterId cluster) {
        UsageHorizon horizon = horizons.get(cluster);
        if (horizon == null) {
            return Long.MAX_VALUE;
        }
        synchronized (horizon) {
            return horizon.nanos();
        }
    }

    /** The settings in force. */
    public PrefixAffinitySettings settings() {
        return settings;
    }

    /** The request's run at {@code cluster}: how many of its leading blocks the cluster holds, in order. */
    public int run(ClusterId cluster, BlockKeys keys) {
        ClusterLru lru = lrus.get(cluster);
        return lru == null || keys.isEmpty() ? 0 : lru.run(keys, clock.nanoTime());
    }

    /**
     * The cluster answered 2xx: its entries for {@code keys} count from now until now + TTL. Offered to the peers
     * ({@link #sharing(MemorySharing)}).
     */
    public void confirm(ClusterId cluster, BlockKeys keys) {
        ClusterLru lru = lrus.get(cluster);
        if (lru != null && !keys.isEmpty()) {
            long now = clock.nanoTime();
            lru.confirm(keys, now, now + settings.ttlNanos());
            sharing.learned(cluster, keys, true);
        }
    }

    /** The cluster answered 429 or 5xx: forget {@code keys} there. Offered to the peers. */
    public void drop(ClusterId cluster, BlockKeys keys) {
        ClusterLru lru = lrus.get(cluster);
        if (lru != null && !keys.isEmpty()) {
            lru.drop(keys);
            sharing.learned(cluster, keys, false);
        }
    }

    /** Sends this replica's later confirmations and drops to {@code target} ({@link MemorySharing#NONE}: nowhere). */
    public void sharing(MemorySharing target) {
        this.sharing = requireNonNull(target, "target");
    }

    /**
     * Applies a peer replica's confirmation or drop with the same semantics as this replica's own (tail-first order,
     * deadline = confirmation time + the TTL in force, capacity), and does not offer it again. A confirmation made
     * {@code ageNanos} ago counts from then, so a late arrival cannot outlive its own TTL, and one already past its
     * TTL is not applied.
     *
     * @param ageNanos how long ago the peer confirmed (its wall clock against ours; a negative skew counts as 0)
     * @return whether it was applied: false for a cluster this replica does not know, empty keys, or an expired
     *     confirmation
     */
    public boolean applyPeer(ClusterId cluster, BlockKeys keys, boolean confirmed, long ageNanos) {
        ClusterLru lru = lrus.get(cluster);
        if (lru == null || keys.isEmpty()) {
            return false;
        }
        if (!confirmed) {
            lru.drop(keys);
            return true;
        }
        long ttl = settings.ttlNanos();
        long age = Math.max(0, ageNanos);
        if (age >= ttl) {
            return false;
        }
        long now = clock.nanoTime();
        long at = now - age;
        lru.confirm(keys, at, at + ttl);
        return true;
    }

    /** Removes entries whose deadline passed, from each LRU's least recent end; call now and then. */
    public void expire() {
        long now = clock.nanoTime();
        lrus.values().forEach(lru -> lru.expire(now));
    }

    /**
     * How long {@code cluster}'s engines keep a prefix nobody reuses, as far as this memory knows: the usage horizon
     * ({@code learn_from_usage}), and under {@code capacity: auto} once the engines' cache size is measured, the age
     * of the least recently confirmed entry of its full LRU, which stands for the engines' own cache; a configured
     * capacity says nothing of the engines. {@code Long.MAX_VALUE}: no sign that the engines evict anything yet.
     */
    public long retentionNanos(ClusterId cluster) {
        ClusterLru lru = lrus.get(cluster);
        if (lru == null) {
            return Long.MAX_VALUE;
        }
        boolean engineSized = settings.auto().capacity() && measuredCapacity.containsKey(cluster);
        long horizon = horizonNanos(cluster);
        return engineSized ? Math.min(lru.evictionAgeNanos(clock.nanoTime()), horizon) : horizon;
    }

    /** Entries held for {@code cluster} (for the prefix-index metric). */
    public int entries(ClusterId cluster) {
        ClusterLru lru = lrus.get(cluster);
        return lru == null ? 0 : lru.size();
    }

    /** The clusters that have an LRU. */
    public Set<ClusterId> clusters() {
        return Set.copyOf(lrus.keySet());
    }

    /** The LRU of {@code cluster}, for tests in this package. */
    @Nullable
    ClusterLru lru(ClusterId cluster) {
        return lrus.get(cluster);
    }
}
