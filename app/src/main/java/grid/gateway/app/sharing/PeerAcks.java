package grid.gateway.app.sharing;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import redis.clients.jedis.StreamEntryID;

/**
 * How far each peer replica has applied the stream, from the acknowledgements they publish in it
 * ({@code sharing.confirm_wait_ms}, docs/prefix-sharing.md "Confirmations the next turn sees"). A replica that
 * confirms a prefix can wait, after the client's answer is in and before relaying it, until every live peer applied
 * that confirmation: the conversation's next turn, wherever the Service sends it, then finds the prefix there.
 *
 * <pre>
 *   heard(peer, id)        the peer applied everything of the stream up to id     → it is live
 *   await(entry, deadline) every live peer applied up to entry?  yes → true
 *                          deadline passed                       → the peers still short of it are no longer live
 *                                                                  (their next acknowledgement makes them live
 *                                                                  again), false
 * </pre>
 *
 * A replica that is gone costs one wait of {@code confirm_wait_ms}, not one a request. Nothing here reads Redis: the
 * reader's thread feeds it, and a waiting request thread only waits for that.
 *
 * <p>Thread-safe: state under one lock, waiters woken by a condition.
 */
final class PeerAcks {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, StreamEntryID> applied = new HashMap<>();
    private final Set<String> live = new HashSet<>();
    private volatile boolean reading;

    /** Whether this replica reads the stream now (connected, warm): without it no acknowledgement can come. */
    boolean reading() {
        return reading;
    }

    /** The reader connected and replayed ({@code true}) or lost Redis ({@code false}). */
    void reading(boolean now) {
        reading = now;
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** {@code peer} applied the stream up to {@code id}. */
    void heard(String peer, StreamEntryID id) {
        requireNonNull(peer, "peer");
        requireNonNull(id, "id");
        lock.lock();
        try {
            applied.merge(peer, id, (old, now) -> now.compareTo(old) > 0 ? now : old);
            live.add(peer);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every live peer applied the stream up to {@code entry}, at most until {@code deadlineNanos} (a
     * {@link System#nanoTime()} reading); returns whether they all did.
     */
    boolean await(StreamEntryID entry, long deadlineNanos) throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                Set<String> behind = shortOf(entry);
                if (behind.isEmpty()) {
                    return true;
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0 || !reading) {
                    // Forgotten, not only set aside: a replica takes a new id at each start, so the ids of peers
                    // that stopped would otherwise pile up for the life of this one.
                    live.removeAll(behind);
                    applied.keySet().removeAll(behind);
                    return false;
                }
                changed.await(left, TimeUnit.NANOSECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The live peers; for tests and logs. */
    Set<String> live() {
        lock.lock();
        try {
            return Set.copyOf(live);
        } finally {
            lock.unlock();
        }
    }

    /** How many peers are remembered, live or not; for tests. */
    int remembered() {
        lock.lock();
        try {
            return applied.size();
        } finally {
            lock.unlock();
        }
    }

    private Set<String> shortOf(StreamEntryID entry) {
        Set<String> missing = new HashSet<>();
        for (String peer : live) {
            StreamEntryID at = applied.get(peer);
            if (at == null || at.compareTo(entry) < 0) {
                missing.add(peer);
            }
        }
        return missing;
    }
}
