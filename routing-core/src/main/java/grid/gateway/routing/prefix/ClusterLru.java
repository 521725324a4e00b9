package grid.gateway.routing.prefix;

import grid.gateway.routing.keyer.BlockKeys;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One backend cluster's prefix entries: block keys in least-recently-confirmed order, each with its own deadline
 * (docs/design.md §6).
 *
 * <p>Why not Caffeine's size eviction: it is W-TinyLFU, which under a stream of one-off prompts keeps old frequent
 * blocks and refuses a new conversation's, the opposite of what affinity needs (STYLE 2.5). And why not deadline
 * order: a TTL change applies to later confirmations only, so deadlines need not follow confirmation order. This is a
 * purpose-built LRU: a doubly linked list threaded through parallel arrays, indexed by an open-addressing table
 * (linear probing, backward-shift deletion), about 40 bytes an entry at full size and no object per entry.
 *
 * <ul>
 *   <li>{@link #run} counts leading keys that are present and unexpired. It does not refresh them.
 *   <li>{@link #confirm} moves keys to the most recent end, tail first, so a request's leading blocks are the most
 *       recent and go last (vLLM frees a sequence's blocks tail first too), and evicts the least recent beyond
 *       capacity.
 *   <li>Deadlines are compared as differences ({@code deadline - now > 0}), so the clock may wrap.
 * </ul>
 *
 * <p>Thread-safe: lookups share a read lock, changes take the write lock; no lock is held across I/O.
 */
final class ClusterLru {
    private static final int NONE = -1;
    private static final int MIN_SLOTS = 64;
    private static final long MIX = 0x9E3779B97F4A7C15L;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final long hashSalt;
    private int capacity;
    private long[] keys;
    private long[] deadlines;
    /** When each entry was last confirmed, for the usage horizon ({@code learn_from_usage}). */
    private long[] confirmedAt;

    private int[] prev;
    private int[] next;
    /** Open-addressing index: slot + 1, or 0 when empty. Length is a power of two, at least twice the slots. */
    private int[] table;

    private int shift;
    private int head = NONE;
    private int tail = NONE;
    private int size;
    private int used;
    private int free = NONE;
    /** Entries confirmed longer ago than this no longer count ({@link UsageHorizon}); unbounded until learned. */
    private long horizonNanos = Long.MAX_VALUE;

    ClusterLru(int capacity, long hashSalt) {
        this.hashSalt = hashSalt;
        this.capacity = capacity;
        allocate(Math.min(capacity, MIN_SLOTS));
    }

    /**
     * How many of {@code keys}, from the first, this cluster holds unexpired at {@code now} and confirmed within the
     * usage horizon.
     */
    int run(BlockKeys keys, long now) {
        lock.readLock().lock();
        try {
            int run = 0;
            while (run < keys.size()) {
                int slot = find(keys.key(run));
                if (slot == NONE || deadlines[slot] - now <= 0 || now - confirmedAt[slot] > horizonNanos) {
                    break;
                }
                run++;
            }
            return run;
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * When each of the leading unexpired keys was confirmed, ignoring the usage horizon: the evidence an answer's
     * reported cached tokens are later checked against.
     */
    long[] confirmations(BlockKeys keys, long now) {
        lock.readLock().lock();
        try {
            long[] at = new long[keys.size()];
            int run = 0;
            while (run < keys.size()) {
                int slot = find(keys.key(run));
                if (slot == NONE || deadlines[slot] - now <= 0) {
                    break;
                }
                at[run++] = confirmedAt[slot];
            }
            return Arrays.copyOf(at, run);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Sets the usage horizon: entries confirmed longer ago stop counting ({@code Long.MAX_VALUE}: no horizon). */
    void horizon(long nanos) {
        lock.writeLock().lock();
        try {
            horizonNanos = nanos;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Records {@code keys} as confirmed at {@code now} and held until {@code deadline}, tail first, evicting the least
     * recent beyond capacity.
     */
    void confirm(BlockKeys keys, long now, long deadline) {
        lock.writeLock().lock();
        try {
            for (int i = keys.size() - 1; i >= 0; i--) {
                long key = keys.key(i);
                int slot = find(key);
                if (slot == NONE) {
                    if (size == capacity) {
                        remove(head);
                    }
                    slot = insert(key);
                } else {
                    unlink(slot);
                }
                deadlines[slot] = deadline;
                confirmedAt[slot] = now;
                linkLast(slot);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Forgets {@code keys}. */
    void drop(BlockKeys keys) {
        lock.writeLock().lock();
        try {
            for (int i = 0; i < keys.size(); i++) {
                int slot = find(keys.key(i));
                if (slot != NONE) {
                    remove(slot);
                }
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Changes the capacity; shrinking evicts the least recently confirmed entries. */
    void resize(int newCapacity) {
        lock.writeLock().lock();
        try {
            capacity = newCapacity;
            while (size > capacity) {
                remove(head);
            }
            if (keys.length > Math.max(MIN_SLOTS, capacity)) {
                rebuild(Math.max(Math.min(capacity, MIN_SLOTS), size));
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Removes expired entries from the least recent end, up to the first unexpired one. */
    void expire(long now) {
        lock.writeLock().lock();
        try {
            while (head != NONE && deadlines[head] - now <= 0) {
                remove(head);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Entries held, expired ones not yet removed included. */
    int size() {
        lock.readLock().lock();
        try {
            return size;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** The keys from least to most recently confirmed; for tests. */
    long[] keysInOrder() {
        lock.readLock().lock();
        try {
            long[] order = new long[size];
            int i = 0;
            for (int slot = head; slot != NONE; slot = next[slot]) {
                order[i++] = keys[slot];
            }
            return order;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Checks the list, the index and the counts agree; for tests after every operation. */
    void checkInvariants() {
        lock.readLock().lock();
        try {
            int count = 0;
            int last = NONE;
            for (int slot = head; slot != NONE; slot = next[slot]) {
                check(prev[slot] == last, "prev link");
                check(find(keys[slot]) == slot, "index finds the entry");
                last = slot;
                count++;
            }
            check(last == tail, "tail");
            check(count == size && size <= capacity, "size");
            check(Arrays.stream(table).filter(t -> t != 0).count() == size, "index count");
        } finally {
            lock.readLock().unlock();
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("ClusterLru invariant broken: " + what);
        }
    }

    private int home(long key) {
        return (int) (((key ^ hashSalt) * MIX) >>> shift);
    }

    private int find(long key) {
        int mask = table.length - 1;
        for (int i = home(key); ; i = (i + 1) & mask) {
            int entry = table[i];
            if (entry == 0) {
                return NONE;
            }
            if (keys[entry - 1] == key) {
                return entry - 1;
            }
        }
    }

    private int insert(long key) {
        if (free == NONE && used == keys.length) {
            rebuild(Math.min(capacity, keys.length * 2));
        }
        int slot;
        if (free != NONE) {
            slot = free;
            free = next[slot];
        } else {
            slot = used++;
        }
        keys[slot] = key;
        int mask = table.length - 1;
        int i = home(key);
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = slot + 1;
        size++;
        return slot;
    }

    private void remove(int slot) {
        unlink(slot);
        removeFromTable(slot);
        next[slot] = free;
        free = slot;
        size--;
    }

    private void removeFromTable(int slot) {
        int mask = table.length - 1;
        int i = home(keys[slot]);
        while (table[i] != slot + 1) {
            i = (i + 1) & mask;
        }
        table[i] = 0;
        // Backward-shift: move later entries of the probe run into the hole unless their home lies after it.
        for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
            int k = home(keys[table[j] - 1]);
            boolean staysPut = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!staysPut) {
                table[i] = table[j];
                table[j] = 0;
                i = j;
            }
        }
    }

    private void unlink(int slot) {
        int p = prev[slot];
        int n = next[slot];
        if (p == NONE) {
            head = n;
        } else {
            next[p] = n;
        }
        if (n == NONE) {
            tail = p;
        } else {
            prev[n] = p;
        }
    }

    private void linkLast(int slot) {
        prev[slot] = tail;
        next[slot] = NONE;
        if (tail == NONE) {
            head = slot;
        } else {
            next[tail] = slot;
        }
        tail = slot;
    }

    private void allocate(int slots) {
        keys = new long[slots];
        deadlines = new long[slots];
        confirmedAt = new long[slots];
        prev = new int[slots];
        next = new int[slots];
        int tableLength = Integer.highestOneBit(Math.max(2, slots * 2 - 1)) << 1;
        table = new int[tableLength];
        shift = 64 - Integer.numberOfTrailingZeros(tableLength);
        used = 0;
        free = NONE;
    }

    /** Reallocates for {@code slots} entries and re-inserts the live ones in recency order. */
    private void rebuild(int slots) {
        long[] oldKeys = keys;
        long[] oldDeadlines = deadlines;
        long[] oldConfirmedAt = confirmedAt;
        int[] oldNext = next;
        int oldHead = head;
        allocate(slots);
        head = NONE;
        tail = NONE;
        size = 0;
        for (int slot = oldHead; slot != NONE; slot = oldNext[slot]) {
            int copy = insert(oldKeys[slot]);
            deadlines[copy] = oldDeadlines[slot];
            confirmedAt[copy] = oldConfirmedAt[slot];
            linkLast(copy);
        }
    }
}
