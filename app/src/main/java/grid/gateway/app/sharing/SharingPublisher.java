package grid.gateway.app.sharing;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.BacklogSharing;
import grid.gateway.routing.prefix.MemorySharing;
import grid.gateway.routing.prefix.RecentlyShared;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;

/**
 * Publishes this replica's confirmations and drops, and with {@code share_backlog} its sends ({@link #sent}: the
 * cluster and the prompt's uncached prefill seconds, docs/prefix-sharing.md): {@link #learned} and {@link #sent} (on
 * the request's thread) only stamp the entry
 * and offers it to a bounded queue, dropping the oldest when full; one thread writes batches with XADD, trimming the
 * stream to about what the replicas' LRUs hold ({@code MAXLEN ~}).
 *
 * <p>A confirmation carries only what is news to the peers: the keys after its leading run already sent within the
 * refresh interval ({@link RecentlyShared}; docs/prefix-sharing.md, "Only the new tail"), so a conversation's turn
 * sends its new tail, not its whole prefix again.
 *
 * <p>A batch that Redis does not take is counted as {@code unsent} and not retried: while Redis is away the queue
 * keeps only the newest entries, which are the ones worth sharing.
 *
 * <p>Thread-safe: the queue is concurrent; the connection belongs to the publishing thread.
 */
final class SharingPublisher implements MemorySharing, BacklogSharing, Runnable {
    /** Entries waiting for Redis: about 10 s of a busy replica (1,000 answers a second). */
    static final int QUEUE_CAPACITY = 10_000;
    /** Entries per pipelined write. */
    static final int BATCH = 256;

    private final ArrayBlockingQueue<Outgoing> queue;
    private final String replica;
    private final String stream;
    private final RedisEndpoint endpoint;
    private final Context context;
    /** Keys sent lately, per cluster; the publishing thread's own. */
    private final RecentlyShared recent = new RecentlyShared();
    /** Where the peers' acknowledgements arrive, and how long a confirmation waits for them (0: never). */
    private volatile PeerAcks acks = new PeerAcks();

    private volatile Duration confirmWait = Duration.ZERO;
    /** Says once when writing starts failing and once when it works again; the publishing thread's own. */
    private final LinkLog log = new LinkLog("publishing to the Redis stream");
    /** The last error reply to a write, for the log; the publishing thread's own. */
    private String refusal = "";

    /** Why a waiting confirmation was not written (no stack: it is an outcome, not an error). */
    private static final Exception NOT_WRITTEN = new NotWritten();

    /**
     * One item of the queue: an entry, or an acknowledgement of the stream up to {@code ack}; {@code written}, when a
     * request waits for it, learns the entry's stream id (empty: nothing new in it), or fails when it was not written.
     */
    private record Outgoing(
            @Nullable SharedEntry entry,
            @Nullable StreamEntryID ack,
            @Nullable CompletableFuture<Optional<StreamEntryID>> written) {
        static Outgoing of(SharedEntry entry) {
            return new Outgoing(entry, null, null);
        }

        void written(Optional<StreamEntryID> id) {
            if (written != null) {
                written.complete(id);
            }
        }

        /** Redis did not take it, or the full queue let it go: no peer can apply it, so its waiter waits no more. */
        void notWritten() {
            if (written != null) {
                written.completeExceptionally(NOT_WRITTEN);
            }
        }
    }

    /**
     * What the publisher reads besides its endpoint.
     *
     * @param meters the sharing meters
     * @param wallMillis the wall clock (entries carry wall time: replicas' monotonic clocks are not comparable)
     * @param streamLength the approximate length to trim the stream to
     * @param refreshMillis how long keys already sent are left out of a later confirmation (the TTL in force ÷ 4;
     *     0: every confirmation is sent in full)
     */
    record Context(
            SharingMeters meters, LongSupplier wallMillis, LongSupplier streamLength, LongSupplier refreshMillis) {}

    SharingPublisher(String replica, String stream, RedisEndpoint endpoint, Context context, int capacity) {
        this.replica = replica;
        this.stream = stream;
        this.endpoint = endpoint;
        this.context = context;
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /**
     * Makes confirmations wait, at most {@code wait} on the request's thread, until every live peer in {@code peers}
     * applied them ({@code sharing.confirm_wait_ms}); {@link Duration#ZERO}: never.
     */
    void confirmations(PeerAcks peers, Duration wait) {
        this.acks = requireNonNull(peers, "peers");
        this.confirmWait = requireNonNull(wait, "wait");
    }

    /**
     * Offers a confirmation or drop to the peers. A confirmation under {@code confirm_wait_ms}, while this replica
     * reads the stream, then waits (the answer is not yet relayed) until it is written and every live peer applied
     * it, or the wait is over: the client's next turn then finds it at whichever replica takes it. Drops never wait.
     */
    @Override
    public void learned(ClusterId cluster, BlockKeys keys, boolean confirmed) {
        SharedEntry entry =
                SharedEntry.of(replica, cluster, confirmed, context.wallMillis().getAsLong(), keys.toArray());
        Duration wait = confirmWait;
        PeerAcks peers = acks;
        if (!confirmed || wait.isZero() || !peers.reading()) {
            offer(Outgoing.of(entry));
            return;
        }
        long deadline = System.nanoTime() + wait.toNanos();
        CompletableFuture<Optional<StreamEntryID>> written = new CompletableFuture<>();
        offer(new Outgoing(entry, null, written));
        boolean applied = false;
        try {
            Optional<StreamEntryID> id = written.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            applied = id.isEmpty() || peers.await(id.get(), deadline);
        } catch (TimeoutException | ExecutionException notWritten) {
            applied = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        context.meters().waited(applied);
    }

    /** Publishes that this replica applied its peers' entries up to {@code id} ({@link PeerAcks}). */
    void ack(StreamEntryID id) {
        offer(new Outgoing(null, requireNonNull(id, "id"), null));
    }

    @Override
    public void sent(ClusterId cluster, double prefillSeconds) {
        offer(Outgoing.of(
                SharedEntry.sent(replica, cluster, context.wallMillis().getAsLong(), prefillSeconds)));
    }

    private void offer(Outgoing entry) {
        while (!queue.offer(entry)) {
            Outgoing oldest = queue.poll();
            if (oldest != null && oldest.entry() != null) {
                oldest.notWritten();
                context.meters().dropped(SharingMeters.Dropped.QUEUE_FULL, 1);
            }
        }
    }

    /** Takes the oldest waiting entry, or null (what the publishing thread does; for the benchmark). */
    @Nullable
    SharedEntry next() {
        Outgoing next = queue.poll();
        return next == null ? null : next.entry();
    }

    /**
     * What of {@code entry} is news to the peers (on the publishing thread): a confirmation without its leading keys
     * sent within the refresh interval, or null when every key was; a drop in full, after which nothing of its
     * cluster counts as sent; a send as it is.
     */
    @Nullable
    SharedEntry news(SharedEntry entry) {
        if (entry.isSend()) {
            return entry;
        }
        String cluster = entry.clusterKey();
        if (!entry.confirmed()) {
            recent.dropped(cluster);
            return entry;
        }
        RecentlyShared.Run sent = recent.sentRun(
                cluster, entry.keys(), entry.atMillis(), context.refreshMillis().getAsLong());
        if (sent.length() == entry.keys().length) {
            return null;
        }
        recent.published(cluster, entry.keys(), sent, entry.atMillis());
        return sent.length() == 0 ? entry : entry.tail(sent.length());
    }

    /** Entries waiting now. */
    int waiting() {
        return queue.size();
    }

    /** The publishing loop: runs until interrupted. */
    @Override
    public void run() {
        Backoff backoff = new Backoff();
        List<Outgoing> drained = new ArrayList<>(BATCH);
        List<Outgoing> batch = new ArrayList<>(BATCH);
        while (!Thread.currentThread().isInterrupted()) {
            try (Jedis jedis = endpoint.open()) {
                while (!Thread.currentThread().isInterrupted()) {
                    Outgoing first = queue.poll(1, TimeUnit.SECONDS);
                    if (first == null) {
                        continue;
                    }
                    drained.add(first);
                    queue.drainTo(drained, BATCH - 1);
                    for (Outgoing item : drained) {
                        SharedEntry news = item.entry() == null ? null : news(item.entry());
                        if (item.entry() == null) {
                            batch.add(item);
                        } else if (news != null) {
                            batch.add(new Outgoing(news, null, item.written()));
                        } else {
                            // Every key was sent lately: nothing to write, and the peers have it.
                            item.written(Optional.empty());
                        }
                    }
                    drained.clear();
                    Refused refused = batch.isEmpty() ? Refused.NONE : write(jedis, batch);
                    // Acknowledgements are bookkeeping between replicas: neither published nor dropped entries.
                    context.meters().published(entries(batch) - refused.entries());
                    context.meters().dropped(SharingMeters.Dropped.UNSENT, refused.entries());
                    if (refused.writes() > 0) {
                        log.failed(refused.writes() + " of " + batch.size() + " writes refused: " + refusal);
                    } else if (!batch.isEmpty()) {
                        log.ok();
                    }
                    batch.clear();
                    backoff.reset();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException | OutOfMemoryError e) {
                // Not only JedisException: a reply the client cannot parse fails with whatever its parser throws,
                // one the heap cannot hold with an OutOfMemoryError (that allocation failed, nothing else holds
                // memory for it; one announcing more than the gateway reads is refused first, ReplyBounds); the
                // connection is closed and opened again either way.
                notSent(batch, drained, e);
                if (!backoff.pause()) {
                    return;
                }
            }
        }
    }

    /** After a failed write: counts {@code batch} as unsent, tells its waiters, and logs the failure once. */
    private void notSent(List<Outgoing> batch, List<Outgoing> drained, Throwable e) {
        context.meters().dropped(SharingMeters.Dropped.UNSENT, entries(batch) + entries(drained));
        if (!Thread.currentThread().isInterrupted()) {
            // (interrupted: being stopped, which closes the socket; no failure of Redis)
            log.failed(e);
        }
        // What did not go out is not "recently sent": the next confirmation sends it again.
        for (Outgoing unsent : batch) {
            unsent.notWritten();
            if (unsent.entry() != null && !unsent.entry().isSend()) {
                recent.dropped(unsent.entry().clusterKey());
            }
        }
        batch.clear();
        drained.forEach(Outgoing::notWritten);
        drained.clear();
    }

    /**
     * Writes {@code batch}, telling each waiting request its entry's stream id; returns what Redis refused (an error
     * reply, e.g. a key of another type).
     */
    private Refused write(Jedis jedis, List<Outgoing> batch) {
        XAddParams params = XAddParams.xAddParams()
                .maxLen(context.streamLength().getAsLong())
                .approximateTrimming();
        Pipeline pipeline = jedis.pipelined();
        long now = context.wallMillis().getAsLong();
        for (Outgoing item : batch) {
            SharedEntry entry = item.entry();
            pipeline.xadd(
                    stream,
                    params,
                    entry != null
                            ? entry.fields()
                            : SharedEntry.ackFields(replica, requireNonNull(item.ack(), "ack"), now));
        }
        int refused = 0;
        int refusedEntries = 0;
        List<Object> replies = pipeline.syncAndReturnAll();
        for (int i = 0; i < replies.size(); i++) {
            Outgoing item = batch.get(i);
            if (replies.get(i) instanceof StreamEntryID id) {
                item.written(Optional.of(id));
            } else {
                item.notWritten();
                refused++;
                refusal = replies.get(i) instanceof Exception error
                        ? String.valueOf(error.getMessage())
                        : String.valueOf(replies.get(i));
                if (item.entry() != null) {
                    refusedEntries++;
                    if (!item.entry().isSend()) {
                        recent.dropped(item.entry().clusterKey());
                    }
                }
            }
        }
        return new Refused(refused, refusedEntries);
    }

    /** The entries among {@code items} (not acknowledgements). */
    private static int entries(List<Outgoing> items) {
        int entries = 0;
        for (Outgoing item : items) {
            if (item.entry() != null) {
                entries++;
            }
        }
        return entries;
    }

    /** What Redis refused of a batch: every write, and the entries among them (acknowledgements are not entries). */
    private record Refused(int writes, int entries) {
        static final Refused NONE = new Refused(0, 0);
    }

    /** A confirmation's entry that Redis did not take. */
    private static final class NotWritten extends Exception {
        private static final long serialVersionUID = 1L;

        NotWritten() {
            super("not written", null, false, false);
        }
    }
}
