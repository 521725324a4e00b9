package grid.gateway.app.observe;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.ClusterPrices;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.MonotonicClock;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the per-cluster gauges read at scrape time: the grid in force, the admission decision (whose queue depth is
 * the {@link grid.gateway.routing.load.QueueDepthWindow} it reads), the prefix memory and the clock they run on.
 *
 * <p>Thread-safe (immutable; each part is thread-safe).
 *
 * @param grid the grid of the config in force, e.g. {@code () -> snapshot.get().config().grid()}
 * @param admission decides {@code grid_cluster_admitted} and reads {@code grid_cluster_queue_depth}
 * @param prefixMemory counts {@code grid_prefix_index_entries}
 * @param clock the monotonic clock the window and ejection run on
 * @param prices the prefill rate, queued-request cost and capacity in force per cluster ({@code SiteRouter::prices})
 * @param missingSeries the engine series each cluster's latest scrape lacked that an {@code auto} estimate needs
 *     ({@code SiteRouter::missingSeries})
 */
public record ClusterState(
        Supplier<Grid> grid,
        Admission admission,
        PrefixMemory prefixMemory,
        MonotonicClock clock,
        Function<ClusterId, ClusterPrices> prices,
        Function<ClusterId, Set<String>> missingSeries) {
    public ClusterState {
        requireNonNull(grid, "grid");
        requireNonNull(admission, "admission");
        requireNonNull(prefixMemory, "prefixMemory");
        requireNonNull(clock, "clock");
        requireNonNull(prices, "prices");
        requireNonNull(missingSeries, "missingSeries");
    }

    /** State whose prices are the configured ones of {@code prefixMemory}'s settings (no calibration). */
    public ClusterState(Supplier<Grid> grid, Admission admission, PrefixMemory prefixMemory, MonotonicClock clock) {
        this(
                grid,
                admission,
                prefixMemory,
                clock,
                id -> new ClusterPrices(
                        prefixMemory.settings().prefillTokensPerSecond(),
                        prefixMemory.settings().queuedRequestSeconds(),
                        OptionalInt.of(prefixMemory.capacity(id)),
                        false,
                        false),
                id -> Set.of());
    }
}
