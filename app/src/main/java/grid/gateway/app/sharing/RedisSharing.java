package grid.gateway.app.sharing;

import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.load.BacklogSharing;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.prefix.MemorySharing;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.MonotonicClock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import redis.clients.jedis.StreamEntryID;

/**
 * Prefix-memory sharing through a Redis stream, started for one gateway: a publisher thread and a reader thread,
 * both virtual (Jedis blocks on sockets, which a virtual thread parks on), and the reader's apply workers
 * ({@link PeerAppliers}, platform threads: applying is CPU-bound), attached to the memory through its
 * {@link MemorySharing} port, and with {@code share_backlog} to the router's prefill backlog through its
 * {@link BacklogSharing} port.
 *
 * <p>Start-up waits for the first replay of the stream (warm start) for at most {@code warm_start_ms}; after that the
 * gateway serves whether or not Redis answered.
 *
 * <p>Thread-safe: built once, closed once.
 */
public final class RedisSharing implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RedisSharing.class.getName());
    /** Keys a shared entry holds on average, for trimming the stream to what the LRUs can hold. */
    private static final int KEYS_PER_ENTRY = 16;

    private static final long MIN_STREAM = 1_000;
    private static final long MAX_STREAM = 1_000_000;

    private final PrefixMemory memory;
    private final Backlog backlog;
    private final boolean shareBacklog;
    private final SharingPublisher publisher;
    private final SharingReader reader;
    private final Thread publishing;
    private final Thread reading;

    /**
     * The router's prefill backlog ({@code load.order_by: expected_wait}) and the clock it runs on: with
     * {@code share_backlog} this replica's sends are published from it and its peers' applied to it.
     */
    public record Backlog(PrefillBacklog line, MonotonicClock clock) {}

    private RedisSharing(
            SharingSettings settings, PrefixMemory memory, Backlog backlog, SharingMeters meters, LongSupplier wall) {
        this.memory = memory;
        this.backlog = backlog;
        this.shareBacklog = settings.shareBacklog();
        // Unique per process start, so a restarted replica applies its former self's entries. Not drawn from the
        // injected random source: replicas seeded alike (tests) must still tell their entries apart.
        String replica = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
        RedisEndpoint endpoint = RedisEndpoint.of(settings);
        SharingPublisher.Context context = new SharingPublisher.Context(
                meters, wall, this::streamLength, () -> memory.settings().ttl().toMillis() / 4);
        this.publisher =
                new SharingPublisher(replica, settings.stream(), endpoint, context, SharingPublisher.QUEUE_CAPACITY);
        Optional<PeerSends> sends = settings.shareBacklog()
                ? Optional.of(new PeerSends(backlog.line(), backlog.clock()))
                : Optional.empty();
        PeerAcks acks = new PeerAcks();
        this.publisher.confirmations(acks, settings.confirmWait());
        this.reader = new SharingReader(
                replica,
                settings.stream(),
                endpoint,
                new SharingReader.Targets(memory, sends, acks, acknowledging(settings, publisher)),
                context);
        this.reading = Thread.ofVirtual().name("grid-sharing-reader").start(reader);
        this.publishing = Thread.ofVirtual().name("grid-sharing-publisher").start(publisher);
        memory.sharing(publisher);
        if (settings.shareBacklog()) {
            backlog.line().sharing(publisher);
        }
    }

    /**
     * Starts sharing {@code memory} (and with {@code share_backlog} {@code backlog}) as {@code settings} say and waits
     * for the warm start, at most {@code settings.warmStart()}.
     */
    public static RedisSharing start(
            SharingSettings settings, PrefixMemory memory, Backlog backlog, SharingMeters meters) {
        return start(settings, memory, backlog, meters, System::currentTimeMillis);
    }

    /** Sharing as {@code settings} say, or none when no {@code redis_url} is configured. */
    public static Optional<RedisSharing> startIfEnabled(
            SharingSettings settings, PrefixMemory memory, Backlog backlog, SharingMeters meters) {
        return settings.enabled() ? Optional.of(start(settings, memory, backlog, meters)) : Optional.empty();
    }

    /** As {@link #start(SharingSettings, PrefixMemory, Backlog, SharingMeters)}, on the wall clock {@code wallMillis}. */
    static RedisSharing start(
            SharingSettings settings,
            PrefixMemory memory,
            Backlog backlog,
            SharingMeters meters,
            LongSupplier wallMillis) {
        RedisSharing sharing = new RedisSharing(settings, memory, backlog, meters, wallMillis);
        sharing.awaitWarm(settings.warmStart());
        return sharing;
    }

    private void awaitWarm(Duration bound) {
        try {
            if (!reader.awaitWarm(bound.toMillis())) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        "prefix sharing: no warm start within " + bound.toMillis()
                                + " ms (Redis unreachable or slow); serving with what this replica learns itself");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * About what the replicas' LRUs can hold, in entries: Σ capacities ÷ keys per entry; twice that with
     * {@code share_backlog}, whose sends (one a request, as many as the confirmations) would otherwise halve the
     * confirmation history the stream keeps for a warm start.
     */
    private long streamLength() {
        long capacity = 0;
        for (ClusterId cluster : memory.clusters()) {
            capacity += memory.capacity(cluster);
        }
        long entries = capacity / KEYS_PER_ENTRY;
        return Math.clamp(shareBacklog ? 2 * entries : entries, MIN_STREAM, MAX_STREAM);
    }

    /** Entries waiting to be published (for tests). */
    int waiting() {
        return publisher.waiting();
    }

    /** Stops sharing: the memory shares nothing more, both threads end. */
    @Override
    public void close() {
        memory.sharing(MemorySharing.NONE);
        backlog.line().sharing(BacklogSharing.NONE);
        publishing.interrupt();
        reading.interrupt();
        try {
            publishing.join(Duration.ofSeconds(3));
            reading.join(Duration.ofSeconds(3));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * How this replica acknowledges what it applied: only where {@code confirm_wait_ms} is set (the replicas of one site
     * run one configuration, so only replicas that wait ask their peers to acknowledge); otherwise nothing is written
     * and peers never wait on this replica, which they only know from its acknowledgements.
     */
    private static Consumer<StreamEntryID> acknowledging(SharingSettings settings, SharingPublisher publisher) {
        return settings.confirmWait().isZero() ? id -> {} : publisher::ack;
    }
}
