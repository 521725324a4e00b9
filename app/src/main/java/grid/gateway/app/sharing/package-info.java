/**
 * Prefix-memory sharing between the replicas of a site through a Redis stream ({@code docs/prefix-sharing.md}): the adapter behind the routing core's {@code MemorySharing} port.
 *
 * <pre>
 *   PrefixMemory.confirm/drop ──MemorySharing──> SharingPublisher (bounded queue) ──XADD MAXLEN ~──> stream
 *   stream ──XREAD──> SharingReader ──PrefixMemory.applyPeer (own entries and unknown clusters skipped)
 * </pre>
 *
 * <p>Routing never waits on Redis: selection reads only the local memory, publishing is a non-blocking offer to a
 * bounded queue, and both threads reconnect with backoff on their own.
 */
@NullMarked
package grid.gateway.app.sharing;

import org.jspecify.annotations.NullMarked;
