package grid.gateway.routing.prefix;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;

/**
 * Where this replica's confirmations and drops go so that its peers can apply them ({@code docs/prefix-sharing.md}): the port the routing core offers; the transport (a Redis stream) lives outside it.
 *
 * <p>Only what this replica learned from its own answers is offered here; what a peer learned is applied with
 * {@link PrefixMemory#applyPeer} and never offered again, so an entry travels once.
 *
 * <p>Implementations must be thread-safe and must not block: they run on the request's thread, right after the
 * answer's status is known. A transport that is down or slow drops what it cannot send; routing never waits for it.
 */
public interface MemorySharing {
    /** Shares nothing: the seed's behaviour, and the default. */
    MemorySharing NONE = (cluster, keys, confirmed) -> {};

    /**
     * This replica confirmed ({@code true}: 2xx) or dropped ({@code false}: 429/5xx) {@code keys} at {@code cluster}
     * just now.
     */
    void learned(ClusterId cluster, BlockKeys keys, boolean confirmed);
}
