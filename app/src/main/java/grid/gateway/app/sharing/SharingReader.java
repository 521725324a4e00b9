package grid.gateway.app.sharing;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.tag.ClusterDigest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * Applies the peers' confirmations and drops to this replica's memory, with the same semantics as its own
 * ({@link PrefixMemory#applyPeer}): its own entries are skipped, entries for clusters it does not know and bad data
 * are counted and ignored.
 *
 * <pre>
 *   connect ──> replay from max(last id read, now − TTL) in batches until a short batch ──> warm (once)
 *           ──> XREAD BLOCK 1 s after the last id, forever
 *   any Redis error ──> disconnected, backoff, connect again (continuing after the last id read)
 * </pre>
 *
 * <p>Thread-safe: runs on one thread; {@link #awaitWarm} may be called from any.
 */
final class SharingReader implements Runnable {
    static final int BLOCK_MILLIS = 1_000;
    static final int COUNT = 1_000;

    private final String replica;
    private final String stream;
    private final RedisEndpoint endpoint;
    private final PrefixMemory memory;
    private final SharingMeters meters;
    private final LongSupplier wallMillis;
    private final CountDownLatch warm = new CountDownLatch(1);
    private StreamEntryID last = new StreamEntryID(0, 0);
    private Set<ClusterId> knownClusters = Set.of();
    private Map<String, ClusterId> byKey = Map.of();

    SharingReader(
            String replica, String stream, RedisEndpoint endpoint, PrefixMemory memory, SharingPublisher.Context c) {
        this.replica = replica;
        this.stream = stream;
        this.endpoint = endpoint;
        this.memory = memory;
        this.meters = c.meters();
        this.wallMillis = c.wallMillis();
    }

    /** Waits until the first replay ended or {@code millis} passed; true when warm. */
    boolean awaitWarm(long millis) throws InterruptedException {
        return warm.await(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        Backoff backoff = new Backoff();
        while (!Thread.currentThread().isInterrupted()) {
            try (Jedis jedis = endpoint.open()) {
                jedis.ping();
                meters.connected(true);
                backoff.reset();
                replay(jedis);
                warm.countDown();
                while (!Thread.currentThread().isInterrupted()) {
                    read(jedis, XReadParams.xReadParams().count(COUNT).block(BLOCK_MILLIS));
                }
            } catch (JedisException e) {
                meters.connected(false);
                if (!backoff.pause()) {
                    break;
                }
            }
        }
        meters.connected(false);
    }

    /** Reads what the stream holds after the last id (at most a TTL old), until a batch comes back short. */
    private void replay(Jedis jedis) {
        long oldest = wallMillis.getAsLong() - memory.settings().ttl().toMillis();
        if (last.getTime() < oldest) {
            last = new StreamEntryID(Math.max(0, oldest), 0);
        }
        while (read(jedis, XReadParams.xReadParams().count(COUNT)) == COUNT) {
            // keep reading: the stream holds more than one batch
        }
    }

    /** One XREAD after the last id; returns how many entries came. */
    private int read(Jedis jedis, XReadParams params) {
        List<Map.Entry<String, List<StreamEntry>>> answer = jedis.xread(params, Map.of(stream, last));
        if (answer == null || answer.isEmpty()) {
            return 0;
        }
        List<StreamEntry> entries = answer.getFirst().getValue();
        refreshClusters();
        for (StreamEntry entry : entries) {
            last = entry.getID();
            apply(entry.getFields());
        }
        return entries.size();
    }

    private void apply(Map<String, String> fields) {
        Optional<SharedEntry> parsed = SharedEntry.parse(fields);
        if (parsed.isEmpty()) {
            meters.dropped(SharingMeters.Dropped.MALFORMED, 1);
            return;
        }
        SharedEntry entry = parsed.get();
        if (entry.replica().equals(replica)) {
            return;
        }
        ClusterId cluster = byKey.get(entry.clusterKey());
        if (cluster == null) {
            meters.dropped(SharingMeters.Dropped.UNKNOWN_CLUSTER, 1);
            return;
        }
        long ageMillis = wallMillis.getAsLong() - entry.atMillis();
        BlockKeys keys = BlockKeys.copyOf(entry.keys(), entry.keys().length);
        if (memory.applyPeer(cluster, keys, entry.confirmed(), TimeUnit.MILLISECONDS.toNanos(ageMillis))) {
            meters.applied(ageMillis);
        } else {
            meters.dropped(SharingMeters.Dropped.EXPIRED, 1);
        }
    }

    /** The clusters of the grid in force, by site and digest (rebuilt when a reload changed them). */
    private void refreshClusters() {
        Set<ClusterId> now = memory.clusters();
        if (!now.equals(knownClusters)) {
            Map<String, ClusterId> keys = new HashMap<>();
            for (ClusterId id : now) {
                keys.put(SharedEntry.clusterKey(id.site().value(), ClusterDigest.of(id.name())), id);
            }
            knownClusters = now;
            byKey = keys;
        }
    }
}
