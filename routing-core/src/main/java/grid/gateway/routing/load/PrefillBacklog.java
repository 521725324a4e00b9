package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.ClusterId;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The prefill this replica has sent each backend cluster and the cluster has not yet worked off, in seconds
 * ({@code load.order_by: expected_wait}). An engine computes prompts one after another on its prefill path, and it
 * exports no gauge of the prompt tokens still to compute: a cluster with free slots that has just taken three 30k-token
 * prompts shows no queue, yet a fourth prompt waits for the three. The gateway knows what it sent: each request adds
 * its uncached tokens ÷ the cluster's prefill rate, and the backlog drains in real time.
 *
 * <pre>
 *   sent(c, s, now)          free(c) = max(free(c), now) + s;  sent(c) += s;  the request's mark = sent(c)
 *   firstToken(c, mark, now) free(c) = now + (sent(c) − mark)     its prefill and all sent before it are done
 *   seconds(c, now)          max(0, free(c) − now)
 * </pre>
 *
 * Each estimate is a little off (the prefill rate is measured, a hit is predicted), and near a cluster's capacity a
 * backlog that only adds estimates and drains in real time drifts far from the truth (in the simulator it read less than
 * half the true backlog of the busiest clusters). A first token tells the truth about its cluster: that request's prompt
 * is computed, and with it everything sent before it, so what is left is what was sent after it; each first token
 * re-anchors the backlog there, and the error is only that of the requests still in flight.
 *
 * <p>What other replicas send is not seen unless they publish it ({@code sharing.share_backlog},
 * docs/prefix-sharing.md): a peer's send, applied with {@link #peerSent}, adds its work as this replica's own does, from
 * when the peer sent it, and counts in {@code sent(c)} too, so a first token's "what was sent after my mark" includes
 * the peers' prompts sent after it (those already in the mark are worked off with it). A peer's send that arrives
 * after a later own send (the stream's delay, milliseconds) counts as sent after that send's mark: the error is at most
 * what the peers sent within one delay. Unpublished, the scraped queue still counts it once it waits for a slot, and a
 * first token's time includes their prompts sent before it. Thread-safe: each cluster's state is updated under its own
 * lock.
 */
public final class PrefillBacklog {
    private final ConcurrentMap<ClusterId, Line> lines = new ConcurrentHashMap<>();
    private volatile BacklogSharing sharing = BacklogSharing.NONE;

    /** One cluster's backlog: when its prefill path frees, and the prefill ever sent to it, nanoseconds. */
    private static final class Line {
        private long freeAt;
        private long sent;

        Line(long now) {
            freeAt = now;
        }

        synchronized long add(long work, long now) {
            freeAt = Math.max(freeAt, now) + work;
            sent += work;
            return sent;
        }

        /** Work a peer sent at {@code sentAt} (the line may have been idle since then: it drains from there). */
        synchronized void addPeer(long work, long sentAt) {
            freeAt = Math.max(freeAt, sentAt) + work;
            sent += work;
        }

        synchronized void anchor(long mark, long now) {
            long after = sent - mark;
            if (after >= 0) {
                freeAt = now + after;
            }
        }

        synchronized long freeAt() {
            return freeAt;
        }
    }

    /** An empty backlog: every cluster free. */
    public PrefillBacklog() {}

    /**
     * {@code prefillSeconds} of prompt work was sent to {@code cluster} at {@code nowNanos}; returns the request's mark
     * for {@link #firstToken} (the prefill ever sent there, itself included), or -1 when it adds nothing.
     */
    public long sent(ClusterId cluster, double prefillSeconds, long nowNanos) {
        requireNonNull(cluster, "cluster");
        if (!(prefillSeconds > 0)) {
            return -1;
        }
        long work = (long) Math.min(Long.MAX_VALUE / 4.0, prefillSeconds * 1e9);
        long mark = lines.computeIfAbsent(cluster, id -> new Line(nowNanos)).add(work, nowNanos);
        sharing.sent(cluster, prefillSeconds);
        return mark;
    }

    /** Offers this replica's later sends ({@link #sent}) to {@code target} ({@link BacklogSharing#NONE}: nowhere). */
    public void sharing(BacklogSharing target) {
        this.sharing = requireNonNull(target, "target");
    }

    /**
     * A peer replica sent {@code prefillSeconds} of prompt work to {@code cluster} {@code ageNanos} before
     * {@code nowNanos} (a negative age, the peers' clocks disagreeing, counts as 0). It is added as an own send is,
     * from when it was sent, and without a mark: only the replica that sent a request hears its first token. It is
     * not offered again.
     *
     * @return whether it added anything (false for no work)
     */
    public boolean peerSent(ClusterId cluster, double prefillSeconds, long ageNanos, long nowNanos) {
        requireNonNull(cluster, "cluster");
        if (!(prefillSeconds > 0)) {
            return false;
        }
        long work = (long) Math.min(Long.MAX_VALUE / 4.0, prefillSeconds * 1e9);
        long sentAt = nowNanos - Math.min(Math.max(0, ageNanos), Long.MAX_VALUE / 4);
        lines.computeIfAbsent(cluster, id -> new Line(sentAt)).addPeer(work, sentAt);
        return true;
    }

    /**
     * The request of {@code mark} sent to {@code cluster} gave its first token at {@code nowNanos}: what is left is the
     * prefill sent after it. A mark from before the cluster was forgotten, or -1, changes nothing.
     */
    public void firstToken(ClusterId cluster, long mark, long nowNanos) {
        Line line = lines.get(requireNonNull(cluster, "cluster"));
        if (line != null && mark >= 0) {
            line.anchor(mark, nowNanos);
        }
    }

    /** Seconds of sent prefill {@code cluster} still has to work off at {@code nowNanos}. */
    public double seconds(ClusterId cluster, long nowNanos) {
        Line line = lines.get(requireNonNull(cluster, "cluster"));
        return line == null ? 0 : Math.max(0, line.freeAt() - nowNanos) / 1e9;
    }

    /** Forgets clusters not in {@code live}. */
    public void retain(Set<ClusterId> live) {
        lines.keySet().retainAll(requireNonNull(live, "live"));
    }
}
