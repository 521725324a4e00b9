package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.MonotonicClock;
import java.util.random.RandomGenerator;

/**
 * The stateful collaborators a {@link SiteRouter} works with, made by the composition root (or a test) so that
 * time, randomness and the listener are injected.
 *
 * <p>Thread-safe if its parts are; every production part is.
 *
 * @param memory the prefix memory
 * @param window queue depths, fed by the scraper
 * @param ejector connect-failure ejection
 * @param random exploration and tie-breaks
 * @param clock the monotonic clock
 * @param listener metrics and logs
 * @param backlog the prefill sent to each cluster not yet worked off ({@code load.order_by: expected_wait}); routers
 *     given one backlog count each other's sends in it (the simulator's one-memory replicas)
 */
public record RoutingParts(
        PrefixMemory memory,
        QueueDepthWindow window,
        OutlierEjector ejector,
        RandomGenerator random,
        MonotonicClock clock,
        RoutingListener listener,
        PrefillBacklog backlog) {

    public RoutingParts {
        requireNonNull(memory, "memory");
        requireNonNull(window, "window");
        requireNonNull(ejector, "ejector");
        requireNonNull(random, "random");
        requireNonNull(clock, "clock");
        requireNonNull(listener, "listener");
        requireNonNull(backlog, "backlog");
    }

    /** The parts with a prefill backlog of their own (one replica, or replicas that share it through a stream). */
    // Six of the record's seven parts (the canonical constructor takes all seven): only the backlog is made here.
    @SuppressWarnings("checkstyle:parameternumber")
    public RoutingParts(
            PrefixMemory memory,
            QueueDepthWindow window,
            OutlierEjector ejector,
            RandomGenerator random,
            MonotonicClock clock,
            RoutingListener listener) {
        this(memory, window, ejector, random, clock, listener, new PrefillBacklog());
    }
}
