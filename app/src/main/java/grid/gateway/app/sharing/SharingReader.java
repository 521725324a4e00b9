package grid.gateway.app.sharing;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.tag.ClusterDigest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntryBinary;

/**
 * Reads the peers' confirmations and drops and has them applied to this replica's memory, with the same semantics as
 * its own ({@link PrefixMemory#applyPeer}), and with {@code share_backlog} their sends to its prefill backlog
 * ({@link PeerSends}): its own entries, and sends without {@code share_backlog}, are skipped before they are decoded;
 * the others go to
 * their cluster's worker ({@link PeerAppliers}), where entries for clusters it does not know and bad data are
 * counted and ignored.
 *
 * <pre>
 *   connect ──> replay from max(last id read, now − TTL) in batches until a short batch
 *           ──> the workers applied it ──> warm (once)
 *           ──> XREAD BLOCK 1 s after the last id, forever
 *   a batch of up to 1,000 entries; one refused for its total size (ReplyBounds) is asked again an eighth as large
 *   after the reconnect, and so on down to one entry, until a batch comes back short; one refused for a value too
 *   large is asked again one entry at a time; one entry refused alone is stepped past (counted as malformed), so
 *   that no reconnect meets it again
 *   any failure of the link (an error, a reset, a reply the client cannot parse, an id not after the last one)
 *       ──> disconnected, backoff, connect again (continuing after the last id read)
 * </pre>
 *
 * <p>Thread-safe: reads on one thread and applies on the workers; {@link #awaitWarm} may be called from any.
 */
final class SharingReader implements Runnable {
    static final int BLOCK_MILLIS = 1_000;
    /** Entries an XREAD asks for, unless a batch was refused for its size. */
    static final int COUNT = 1_000;
    /** What a batch refused for its total size ({@link ReplyBounds#MAX_REPLY}) is divided by when asked again. */
    static final int SHRINK = 8;
    /** How long the warm start waits for the workers to apply the replay (the start waits less: warm_start_ms). */
    static final long DRAIN_MILLIS = 60_000;

    private final byte[] replica;
    private final byte[] stream;
    private final RedisEndpoint endpoint;
    private final PrefixMemory memory;
    private final SharingMeters meters;
    private final LongSupplier wallMillis;
    private final CountDownLatch warm = new CountDownLatch(1);
    private final PeerAppliers appliers;
    /** Where peers' sends go ({@code share_backlog}); without it they are skipped, as own entries are. */
    private final Optional<PeerSends> sends;
    /** The peers' acknowledgements, and this replica's own: what it applied, published through the publisher. */
    private final PeerAcks acks;

    private final Consumer<StreamEntryID> acknowledge;

    private final LinkLog log = new LinkLog("reading the Redis stream");
    private StreamEntryID last = new StreamEntryID(0, 0);
    /**
     * Entries the next XREAD asks for: {@link #COUNT}, or fewer after a reply refused for its total size, until a
     * batch comes back short (the large entries were read).
     */
    private int batch = COUNT;

    private Set<ClusterId> knownClusters = Set.of();
    /** The clusters by site and digest; written by the reader, read by the workers. */
    private volatile Map<String, ClusterId> byKey = Map.of();
    /** Each known cluster's worker. */
    private ClusterWorkers workers = ClusterWorkers.NONE;

    /**
     * What the peers' entries are applied to: the memory, and with {@code share_backlog} the prefill backlog; where
     * their acknowledgements are kept, and how this replica acknowledges what it applied.
     */
    record Targets(
            PrefixMemory memory, Optional<PeerSends> sends, PeerAcks acks, Consumer<StreamEntryID> acknowledge) {}

    SharingReader(String replica, String stream, RedisEndpoint endpoint, Targets targets, SharingPublisher.Context c) {
        PrefixMemory memory = targets.memory();
        this.sends = targets.sends();
        this.acks = targets.acks();
        this.acknowledge = targets.acknowledge();
        this.replica = replica.getBytes(StandardCharsets.UTF_8);
        this.stream = stream.getBytes(StandardCharsets.UTF_8);
        this.endpoint = endpoint;
        this.memory = memory;
        this.meters = c.meters();
        this.wallMillis = c.wallMillis();
        this.appliers = new PeerAppliers(
                PeerAppliers.defaultThreads(),
                PeerAppliers.QUEUE_CAPACITY,
                this::apply,
                () -> meters.dropped(SharingMeters.Dropped.APPLY_QUEUE_FULL, 1));
    }

    /** Waits until the first replay ended or {@code millis} passed; true when warm. */
    boolean awaitWarm(long millis) throws InterruptedException {
        return warm.await(millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void run() {
        Backoff backoff = new Backoff();
        try {
            while (!Thread.currentThread().isInterrupted()) {
                try (Jedis jedis = endpoint.open()) {
                    jedis.ping();
                    meters.connected(true);
                    backoff.reset();
                    replay(jedis);
                    // Only now: a Redis that answers PING but refuses XREAD (-WRONGTYPE, -NOAUTH) is still failing.
                    log.ok();
                    appliers.drain(DRAIN_MILLIS);
                    warm.countDown();
                    // Say so at once: the peers wait for this replica's acknowledgements from now on.
                    acknowledge.accept(last);
                    acks.reading(true);
                    while (!Thread.currentThread().isInterrupted()) {
                        read(jedis, false);
                    }
                } catch (RuntimeException | OutOfMemoryError e) {
                    // Not only JedisException: a reply the client cannot parse (garbage, a wrong type) fails with
                    // whatever its parser throws, and the link is as broken as after a reset. A reply announcing
                    // more than the gateway reads is refused on the connection before the client allocates it
                    // (ReplyBounds); an OutOfMemoryError here is an allocation for a reply that the heap could not
                    // hold: it failed, and nothing else holds memory for it.
                    acks.reading(false);
                    meters.connected(false);
                    OversizedReply.in(e).ifPresent(this::oversized);
                    if (!Thread.currentThread().isInterrupted()) {
                        // (interrupted: being stopped, which closes the socket; no failure of Redis)
                        log.failed(e);
                    }
                    if (!backoff.pause()) {
                        break;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            acks.reading(false);
            appliers.close();
            meters.connected(false);
        }
    }

    /**
     * A reply refused for its size. A batch of entries too large together is asked again in smaller ones, after the
     * same id; a batch holding one value too large, one entry at a time, until the entry it is in comes alone. That
     * entry, refused alone, can never be read: the reader steps past it (its id is the reply's second bulk string)
     * and counts it as malformed, so that the next connection reads on after it instead of meeting it again.
     */
    private void oversized(OversizedReply refused) {
        if (batch == 1) {
            Optional<StreamEntryID> id = refused.secondBulk().flatMap(SharingReader::entryId);
            if (id.isPresent() && id.get().compareTo(last) > 0) {
                last = id.get();
                meters.dropped(SharingMeters.Dropped.MALFORMED, 1);
            }
            return;
        }
        batch = refused.whole() ? Math.max(1, batch / SHRINK) : 1;
    }

    private static Optional<StreamEntryID> entryId(String text) {
        try {
            return Optional.of(new StreamEntryID(text));
        } catch (RuntimeException notAnId) {
            return Optional.empty();
        }
    }

    /** Reads what the stream holds after the last id (at most a TTL old), until a batch comes back short. */
    private void replay(Jedis jedis) throws InterruptedException {
        long oldest = wallMillis.getAsLong() - memory.settings().ttl().toMillis();
        if (last.getTime() < oldest) {
            last = new StreamEntryID(Math.max(0, oldest), 0);
        }
        while (read(jedis, true)) {
            // keep reading: the stream holds more than one batch
        }
    }

    /**
     * One XREAD of a batch after the last id (blocking for new entries unless {@code replaying}), its entries handed to
     * the workers; returns whether the batch came back full.
     */
    private boolean read(Jedis jedis, boolean replaying) throws InterruptedException {
        int asked = batch;
        XReadParams params = XReadParams.xReadParams().count(asked);
        List<Map.Entry<byte[], List<StreamEntryBinary>>> answer =
                jedis.xreadBinary(replaying ? params : params.block(BLOCK_MILLIS), Map.of(stream, last));
        List<StreamEntryBinary> entries = answer == null || answer.isEmpty()
                ? List.of()
                : answer.getFirst().getValue();
        if (entries.size() < asked) {
            batch = COUNT; // past what had to be read in smaller batches, if anything
        }
        if (entries.isEmpty()) {
            return false;
        }
        refreshClusters();
        boolean applying = false;
        for (StreamEntryBinary entry : entries) {
            if (entry.getID().compareTo(last) <= 0) {
                // Redis answers XREAD with ids after the one asked for, in order. A server that repeats or goes back
                // would have the replay read the same batch for ever and the entries applied again and again.
                throw new IllegalStateException("the stream answered id " + entry.getID() + ", not after " + last);
            }
            last = entry.getID();
            Map<byte[], byte[]> fields = entry.getFields();
            if (SharedEntry.from(fields, replica)) {
                continue;
            }
            if (SharedEntry.isAck(fields)) {
                SharedEntry.parseAck(fields).ifPresent(ack -> acks.heard(ack.replica(), ack.id()));
            } else if (sends.isPresent() || !SharedEntry.isSend(fields)) {
                appliers.offer(fields, workers.of(SharedEntry.clusterKey(fields)), replaying);
                applying = true;
            }
        }
        if (applying && !replaying) {
            StreamEntryID upTo = last;
            appliers.after(() -> acknowledge.accept(upTo));
        }
        return entries.size() == asked;
    }

    /** Applies one peer's entry (on a worker). */
    private void apply(Map<byte[], byte[]> fields) {
        Optional<SharedEntry> parsed = SharedEntry.parseRaw(fields);
        if (parsed.isEmpty()) {
            meters.dropped(SharingMeters.Dropped.MALFORMED, 1);
            return;
        }
        SharedEntry entry = parsed.get();
        ClusterId cluster = byKey.get(entry.clusterKey());
        if (cluster == null) {
            meters.dropped(SharingMeters.Dropped.UNKNOWN_CLUSTER, 1);
            return;
        }
        long ageMillis = wallMillis.getAsLong() - entry.atMillis();
        if (entry.isSend()) {
            if (sends.isPresent() && sends.get().apply(entry, cluster, ageMillis)) {
                meters.applied(ageMillis);
            } else {
                meters.dropped(SharingMeters.Dropped.EXPIRED, 1);
            }
            return;
        }
        BlockKeys keys = BlockKeys.copyOf(entry.keys(), entry.keys().length);
        if (memory.applyPeer(cluster, keys, entry.confirmed(), TimeUnit.MILLISECONDS.toNanos(ageMillis))) {
            meters.applied(ageMillis);
        } else {
            meters.dropped(SharingMeters.Dropped.EXPIRED, 1);
        }
    }

    /**
     * The clusters of the grid in force, by site and digest, and their workers (rebuilt when a reload changed them).
     * Before a cluster moves to another worker, the workers apply what they hold, so that one cluster's entries
     * are never applied by two workers at once, out of order ({@link ClusterWorkers#moves}).
     */
    private void refreshClusters() throws InterruptedException {
        Set<ClusterId> now = memory.clusters();
        if (!now.equals(knownClusters)) {
            TreeMap<String, ClusterId> keys = new TreeMap<>();
            for (ClusterId id : now) {
                keys.put(SharedEntry.clusterKey(id.site().value(), ClusterDigest.of(id.name())), id);
            }
            ClusterWorkers next = ClusterWorkers.deal(keys.navigableKeySet(), appliers.threads());
            if (workers.moves(next)) {
                appliers.drain(DRAIN_MILLIS);
            }
            knownClusters = now;
            byKey = Map.copyOf(keys);
            workers = next;
        }
    }
}
