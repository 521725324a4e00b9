package grid.gateway.app.sharing;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.BacklogSharing;
import grid.gateway.routing.prefix.MemorySharing;
import grid.gateway.routing.prefix.RecentlyShared;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisException;
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

    private final ArrayBlockingQueue<SharedEntry> queue;
    private final String replica;
    private final String stream;
    private final RedisEndpoint endpoint;
    private final Context context;
    /** Keys sent lately, per cluster; the publishing thread's own. */
    private final RecentlyShared recent = new RecentlyShared();

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

    @Override
    public void learned(ClusterId cluster, BlockKeys keys, boolean confirmed) {
        offer(SharedEntry.of(replica, cluster, confirmed, context.wallMillis().getAsLong(), keys.toArray()));
    }

    @Override
    public void sent(ClusterId cluster, double prefillSeconds) {
        offer(SharedEntry.sent(replica, cluster, context.wallMillis().getAsLong(), prefillSeconds));
    }

    private void offer(SharedEntry entry) {
        while (!queue.offer(entry)) {
            if (queue.poll() != null) {
                context.meters().dropped(SharingMeters.Dropped.QUEUE_FULL, 1);
            }
        }
    }

    /** Takes the oldest waiting entry, or null (what the publishing thread does; for the benchmark). */
    SharedEntry next() {
        return queue.poll();
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
        List<SharedEntry> drained = new ArrayList<>(BATCH);
        List<SharedEntry> batch = new ArrayList<>(BATCH);
        while (!Thread.currentThread().isInterrupted()) {
            try (Jedis jedis = endpoint.open()) {
                while (!Thread.currentThread().isInterrupted()) {
                    SharedEntry first = queue.poll(1, TimeUnit.SECONDS);
                    if (first == null) {
                        continue;
                    }
                    drained.add(first);
                    queue.drainTo(drained, BATCH - 1);
                    for (SharedEntry entry : drained) {
                        SharedEntry news = news(entry);
                        if (news != null) {
                            batch.add(news);
                        }
                    }
                    drained.clear();
                    int refused = batch.isEmpty() ? 0 : write(jedis, batch);
                    context.meters().published(batch.size() - refused);
                    context.meters().dropped(SharingMeters.Dropped.UNSENT, refused);
                    batch.clear();
                    backoff.reset();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (JedisException e) {
                context.meters().dropped(SharingMeters.Dropped.UNSENT, batch.size());
                // What did not go out is not "recently sent": the next confirmation sends it again.
                batch.stream()
                        .filter(unsent -> !unsent.isSend())
                        .forEach(unsent -> recent.dropped(unsent.clusterKey()));
                batch.clear();
                if (!backoff.pause()) {
                    return;
                }
            }
        }
    }

    /** Writes {@code batch}; returns how many entries Redis refused (an error reply, e.g. a key of another type). */
    private int write(Jedis jedis, List<SharedEntry> batch) {
        XAddParams params = XAddParams.xAddParams()
                .maxLen(context.streamLength().getAsLong())
                .approximateTrimming();
        Pipeline pipeline = jedis.pipelined();
        for (SharedEntry entry : batch) {
            pipeline.xadd(stream, params, entry.fields());
        }
        int refused = 0;
        List<Object> replies = pipeline.syncAndReturnAll();
        for (int i = 0; i < replies.size(); i++) {
            if (replies.get(i) instanceof Exception) {
                refused++;
                if (!batch.get(i).isSend()) {
                    recent.dropped(batch.get(i).clusterKey());
                }
            }
        }
        return refused;
    }
}
