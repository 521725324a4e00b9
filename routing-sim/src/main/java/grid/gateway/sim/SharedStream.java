package grid.gateway.sim;

import grid.gateway.routing.SiteRouter;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.MemorySharing;
import grid.gateway.routing.prefix.PrefixMemory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Redis stream of prefix sharing ({@code docs/prefix-sharing.md}) on the simulated clock: every
 * replica keeps its own {@link PrefixMemory}, offers its confirmations and drops through the real
 * {@link MemorySharing} port, and applies its peers' with the real {@link PrefixMemory#applyPeer} once they are
 * {@code lag} seconds old (publish, XADD, XREAD). A replica applies what arrived just before it routes: the memory is
 * read only then, so this is what a reader thread applying them as they come would have done.
 *
 * <p>A replica that joins with its router also publishes its sends ({@code sharing.share_backlog}: the cluster and the
 * prompt's uncached prefill seconds, through the real {@code BacklogSharing} port) and adds its peers' to its prefill
 * backlog with the real {@code PrefillBacklog.peerSent}, with the same lag.
 *
 * <p>Not thread-safe (one per run, as the simulation).
 */
final class SharedStream {
    private final double lag;
    private final SimClock clock;
    private final List<Entry> entries = new ArrayList<>();
    private final List<PrefixMemory> memories = new ArrayList<>();
    private final List<Optional<SiteRouter>> routers = new ArrayList<>();
    private final List<Integer> cursors = new ArrayList<>();

    /** One entry: a confirmation or drop ({@code keys} set), or a send ({@code prefillSeconds} > 0, no keys). */
    private record Entry(
            int replica, ClusterId cluster, BlockKeys keys, boolean confirmed, double prefillSeconds, double at) {}

    SharedStream(double lagSeconds, SimClock clock) {
        if (!(lagSeconds >= 0)) {
            throw new IllegalArgumentException("lag: " + lagSeconds + " (expected: >= 0)");
        }
        this.lag = lagSeconds;
        this.clock = clock;
    }

    /** Adds a replica's memory: what it learns is published, and it reads from the start. Returns its index. */
    int join(PrefixMemory memory) {
        return join(memory, Optional.empty());
    }

    /** As {@link #join(PrefixMemory)}, and with a router its sends are published and its peers' applied too. */
    int join(PrefixMemory memory, Optional<SiteRouter> router) {
        int replica = memories.size();
        memories.add(memory);
        routers.add(router);
        cursors.add(0);
        memory.sharing((cluster, keys, confirmed) ->
                entries.add(new Entry(replica, cluster, keys, confirmed, 0, clock.seconds())));
        router.ifPresent(r -> r.backlog()
                .sharing((cluster, seconds) ->
                        entries.add(new Entry(replica, cluster, BlockKeys.none(), true, seconds, clock.seconds()))));
        return replica;
    }

    /** Applies to {@code replica} its peers' entries that reached it by now, in stream order. */
    void deliver(int replica) {
        PrefixMemory memory = memories.get(replica);
        Optional<SiteRouter> router = routers.get(replica);
        double now = clock.seconds();
        int cursor = cursors.get(replica);
        while (cursor < entries.size() && entries.get(cursor).at() + lag <= now) {
            Entry entry = entries.get(cursor++);
            if (entry.replica() != replica) {
                long ageNanos = (long) ((now - entry.at()) * 1e9);
                if (entry.prefillSeconds() > 0) {
                    router.ifPresent(r ->
                            r.backlog().peerSent(entry.cluster(), entry.prefillSeconds(), ageNanos, clock.nanoTime()));
                } else {
                    memory.applyPeer(entry.cluster(), entry.keys(), entry.confirmed(), ageNanos);
                }
            }
        }
        cursors.set(replica, cursor);
    }
}
