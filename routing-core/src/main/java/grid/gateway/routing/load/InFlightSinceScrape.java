package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The requests this replica sent each backend cluster after its latest scrape began and that have not ended yet
 * ({@code load.count_sent_since_scrape}). A scraped queue depth is as old as its scrape: every request routed by load
 * between two scrapes sees the same depths and goes to the same least-queued cluster, so a burst herds. Adding what
 * this replica itself has in flight there since then spreads the burst, with no extra traffic to the engines.
 *
 * <pre>
 *   sent(c)           one more request forwarded to c              → its ticket (one sequence for every cluster)
 *   mark()            the latest ticket given: a scrape beginning now sees every request up to it
 *   ended(c, t)       that request's answer ended (or it failed)   → no longer counted
 *   scraped(c, m)     a scrape of c that began at mark m was recorded → requests up to m are in its counts: forgotten
 *   count(c)          what is left: sent since the latest scrape began, not ended
 * </pre>
 *
 * <p>Why in flight and not sent: an answered request is no longer queued anywhere. Counting every request sent since
 * the scrape made light sequential traffic (each request answered in milliseconds) pile dozens of finished requests
 * on its sticky cluster between two scrapes, and the load gate then left it. A request counts until its answer ends,
 * not until the answer's first byte: what is added is compared with the slots the scrape found free, and a streamed
 * request holds its slot until its last token (an engine sends a stream's headers before its first token, so the
 * first byte says nothing of the slot).
 *
 * <p>Why "began": a scrape may take seconds to answer (an engine's {@code /metrics} stalls under a burst); a request
 * sent while it was in flight may or may not be in its counts. It stays counted until a later scrape that began after
 * it, so a stalled scrape never wipes out what was sent during the stall; at worst it is counted twice for one poll
 * interval. Tickets order sends and scrape beginnings exactly, whatever the clock says.
 *
 * <p>A request whose end is never reported (the client went away before the answer) is forgotten at the next scrape
 * that began after it, so the count cannot leak beyond one poll interval. An end reported without its ticket (a
 * decision that does not carry one) ends the newest request counted. Each cluster keeps at most
 * {@value #MAX_PER_CLUSTER} requests (the oldest go first), so a cluster whose scrapes all fail cannot grow it without
 * bound.
 *
 * <p>Thread-safe: tickets come from one atomic sequence; each cluster's requests are guarded by their own lock.
 */
public final class InFlightSinceScrape {
    /** The most requests a cluster keeps counted. */
    static final int MAX_PER_CLUSTER = 65_536;

    private final AtomicLong tickets = new AtomicLong();
    private final ConcurrentMap<ClusterId, Line> lines = new ConcurrentHashMap<>();

    /** One cluster's requests in flight since its latest scrape began, by ticket. */
    private static final class Line {
        private final ReentrantLock lock = new ReentrantLock();
        private final TreeSet<Long> sent = new TreeSet<>();
        private long since;

        void add(long ticket) {
            lock.lock();
            try {
                if (ticket > since) {
                    sent.add(ticket);
                    if (sent.size() > MAX_PER_CLUSTER) {
                        sent.pollFirst();
                    }
                }
            } finally {
                lock.unlock();
            }
        }

        void end(long ticket) {
            lock.lock();
            try {
                sent.remove(ticket);
            } finally {
                lock.unlock();
            }
        }

        void endNewest() {
            lock.lock();
            try {
                sent.pollLast();
            } finally {
                lock.unlock();
            }
        }

        void scrapeBegan(long mark) {
            lock.lock();
            try {
                if (mark > since) {
                    since = mark;
                    sent.headSet(mark, true).clear();
                }
            } finally {
                lock.unlock();
            }
        }

        int count() {
            lock.lock();
            try {
                return sent.size();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Nothing in flight. */
    public InFlightSinceScrape() {}

    /** One more request was forwarded to {@code cluster}; returns its ticket for {@link #ended}. */
    public long sent(ClusterId cluster) {
        Line line = lines.computeIfAbsent(requireNonNull(cluster, "cluster"), id -> new Line());
        long ticket = tickets.incrementAndGet();
        line.add(ticket);
        return ticket;
    }

    /** The latest ticket given: a scrape that begins now sees every request sent up to it. */
    public long mark() {
        return tickets.get();
    }

    /**
     * The request of {@code ticket} sent to {@code cluster} ended: its answer was relayed, or it failed. A request sent
     * before the latest scrape began is not counted any more, and ending it changes nothing.
     */
    public void ended(ClusterId cluster, long ticket) {
        Line line = lines.get(requireNonNull(cluster, "cluster"));
        if (line != null) {
            line.end(ticket);
        }
    }

    /** A request to {@code cluster} whose ticket is not known ended: the newest one counted ends. */
    public void endedUnstamped(ClusterId cluster) {
        Line line = lines.get(requireNonNull(cluster, "cluster"));
        if (line != null) {
            line.endNewest();
        }
    }

    /** A scrape of {@code cluster} that began at {@code mark} ({@link #mark()} then) was recorded. */
    public void scraped(ClusterId cluster, long mark) {
        lines.computeIfAbsent(requireNonNull(cluster, "cluster"), id -> new Line())
                .scrapeBegan(mark);
    }

    /** Requests sent to {@code cluster} since its latest scrape began that have not ended. */
    public int count(ClusterId cluster) {
        Line line = lines.get(requireNonNull(cluster, "cluster"));
        return line == null ? 0 : line.count();
    }

    /** Forgets clusters not in {@code live}. */
    public void retain(Set<ClusterId> live) {
        lines.keySet().retainAll(requireNonNull(live, "live"));
    }
}
