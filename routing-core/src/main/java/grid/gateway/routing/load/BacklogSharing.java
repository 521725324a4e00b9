package grid.gateway.routing.load;

import grid.gateway.routing.grid.ClusterId;

/**
 * Where this replica's sends go so that its peers can add them to their {@link PrefillBacklog}
 * ({@code sharing.share_backlog}, docs/prefix-sharing.md): the port the routing core offers; the transport (a Redis
 * stream) lives outside it. With R replicas behind a random spread each one sends about 1/R of a cluster's prompts,
 * so a backlog of its own sends alone reads about 1/R of the truth.
 *
 * <p>Only this replica's own sends are offered; a peer's, applied with {@link PrefillBacklog#peerSent}, is never offered
 * again. Implementations must be thread-safe and must not block: they run on the request's thread, right after the
 * route is chosen. A transport that is down or slow drops what it cannot send; routing never waits for it.
 */
public interface BacklogSharing {
    /** Shares nothing: the default. */
    BacklogSharing NONE = (cluster, prefillSeconds) -> {};

    /** This replica just sent {@code cluster} a prompt of {@code prefillSeconds} of uncached prefill. */
    void sent(ClusterId cluster, double prefillSeconds);
}
