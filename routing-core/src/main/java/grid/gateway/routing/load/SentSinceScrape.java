package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The requests this replica sent each backend cluster since that cluster's latest scrape
 * ({@code load.count_sent_since_scrape}). A scraped queue depth is as old as its scrape: every request routed by
 * load between two scrapes sees the same depths and goes to the same least-queued cluster, so a burst herds. Adding
 * what this replica itself sent since then spreads the burst, with no extra traffic to the engines (llm-d counts
 * its own dispatches the same way).
 *
 * <pre>
 *   sent(c)       one more request forwarded to c
 *   scraped(c)    c's latest scrape was recorded: its depth now includes what was sent before it → 0
 *   count(c)      what was sent since
 * </pre>
 *
 * <p>A request sent while the scrape was in flight is counted by neither the scrape nor the counter; the next scrape
 * sees it. Thread-safe and lock-free.
 */
public final class SentSinceScrape {
    private final ConcurrentMap<ClusterId, AtomicInteger> counts = new ConcurrentHashMap<>();

    /** An empty count. */
    public SentSinceScrape() {}

    /** One more request was forwarded to {@code cluster}. */
    public void sent(ClusterId cluster) {
        counts.computeIfAbsent(requireNonNull(cluster, "cluster"), id -> new AtomicInteger())
                .incrementAndGet();
    }

    /** A scrape of {@code cluster} was recorded. */
    public void scraped(ClusterId cluster) {
        AtomicInteger count = counts.get(requireNonNull(cluster, "cluster"));
        if (count != null) {
            count.set(0);
        }
    }

    /** Requests sent to {@code cluster} since its latest scrape. */
    public int count(ClusterId cluster) {
        AtomicInteger count = counts.get(requireNonNull(cluster, "cluster"));
        return count == null ? 0 : count.get();
    }

    /** Forgets clusters not in {@code live}. */
    public void retain(Set<ClusterId> live) {
        counts.keySet().retainAll(requireNonNull(live, "live"));
    }
}
