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
 * purpose-built LRU: a doubly linked list threaded through one array of 32-byte slots (key, deadline, confirmation
 * time, both links), indexed by an open-addressing table a quarter full (linear probing, backward-shift deletion)
 * whose cells hold the slot and the upper half of the key's hash: 64 bytes an entry, no object per entry. A slot's
 * fields share a cache line; probing, inserting and deleting read only the table (the hash half tells keys apart and
 * gives a cell's home), and a quarter-full table keeps probe runs short, so a new key that evicts another costs
 * about half what a 40-byte entry layout measured (docs/prefix-sharing.md, "Cost").
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
    private static final long HIGH = 0xFFFF_FFFF_0000_0000L;
    private static final long LOW = 0xFFFF_FFFFL;

    /** A slot's fields, {@link #STRIDE} longs from {@code slot * STRIDE}. */
    private static final int STRIDE = 4;

    private static final int KEY = 0;
    private static final int DEADLINE = 1;
    /** When the entry was last confirmed, for the usage horizon ({@code learn_from_usage}) and the eviction age. */
    private static final int CONFIRMED = 2;
    /** The previous slot in the upper half, the next in the lower (a free slot: the next free one). */
    private static final int LINKS = 3;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final long hashSalt;
    private int capacity;
    private long[] slots;
    private int room; // slots the array has room for
    /** The index: 0 when empty, else the key's hash with its lower half replaced by slot + 1; 4 cells a slot. */
    private long[] table;

    private int shift;
    private int head = NONE;
    private int tail = NONE;
    private volatile int size;
    private int used;
    private int free = NONE;
    /** Entries confirmed longer ago than this no longer count ({@link UsageHorizon}); unbounded until learned. */
    private volatile long horizonNanos = Long.MAX_VALUE;

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
            long horizon = horizonNanos;
            int run = 0;
            while (run < keys.size()) {
                int slot = find(keys.key(run));
                if (slot == NONE
                        || slots[slot * STRIDE + DEADLINE] - now <= 0
                        || now - slots[slot * STRIDE + CONFIRMED] > horizon) {
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
                if (slot == NONE || slots[slot * STRIDE + DEADLINE] - now <= 0) {
                    break;
                }
                at[run++] = slots[slot * STRIDE + CONFIRMED];
            }
            return Arrays.copyOf(at, run);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Sets the usage horizon: entries confirmed longer ago stop counting ({@code Long.MAX_VALUE}: no horizon). */
    void horizon(long nanos) {
        horizonNanos = nanos;
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
                if (slot == NONE && size == capacity) {
                    slot = replaceHead(key);
                } else if (slot == NONE) {
                    slot = insert(key);
                } else {
                    unlink(slot);
                }
                slots[slot * STRIDE + DEADLINE] = deadline;
                slots[slot * STRIDE + CONFIRMED] = now;
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
            if (room > Math.max(MIN_SLOTS, capacity)) {
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
            while (head != NONE && slots[head * STRIDE + DEADLINE] - now <= 0) {
                remove(head);
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The age at {@code now} of the entry a new one would evict; {@code Long.MAX_VALUE} while there is room. */
    long evictionAgeNanos(long now) {
        lock.readLock().lock();
        try {
            return size < capacity ? Long.MAX_VALUE : now - slots[head * STRIDE + CONFIRMED];
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Entries held, expired ones not yet removed included (changed under the write lock, read without it). */
    int size() {
        return size;
    }

    /** The keys from least to most recently confirmed; for tests. */
    long[] keysInOrder() {
        lock.readLock().lock();
        try {
            long[] order = new long[size];
            for (int slot = head, i = 0; slot != NONE; slot = next(slot)) {
                order[i++] = slots[slot * STRIDE + KEY];
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
            for (int slot = head; slot != NONE; slot = next(slot)) {
                check(prev(slot) == last, "prev link");
                check(find(slots[slot * STRIDE + KEY]) == slot, "index finds the entry");
                last = slot;
                count++;
            }
            check(last == tail, "tail");
            check(count == size && size <= capacity, "size");
            check(Arrays.stream(table).filter(t -> t != 0).count() == size, "index count");
            for (long cell : table) {
                check(cell == 0 || (cell & HIGH) == (mix(slots[((int) cell - 1) * STRIDE + KEY]) & HIGH), "hash half");
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException("ClusterLru invariant broken: " + what);
        }
    }

    private long mix(long key) {
        return (key ^ hashSalt) * MIX;
    }

    /** A hash's or a cell's home: the hash's top bits (the shift is at least 33, so a cell keeps them). */
    private int home(long hashOrCell) {
        return (int) (hashOrCell >>> shift);
    }

    private int find(long key) {
        long hash = mix(key);
        long high = hash & HIGH;
        int mask = table.length - 1;
        for (int i = home(hash); ; i = (i + 1) & mask) {
            long cell = table[i];
            if (cell == 0) {
                return NONE;
            }
            if ((cell & HIGH) == high && slots[((int) cell - 1) * STRIDE + KEY] == key) {
                return (int) cell - 1;
            }
        }
    }

    private int insert(long key) {
        if (free == NONE && used == room) {
            rebuild(Math.min(capacity, room * 2));
        }
        int slot = free == NONE ? used++ : free;
        if (slot == free) {
            free = next(slot);
        }
        slots[slot * STRIDE + KEY] = key;
        index(mix(key), slot);
        size++;
        return slot;
    }

    /** Evicts the least recent entry and gives its slot to {@code key} (the memory is full). */
    private int replaceHead(long key) {
        int slot = head;
        unlink(slot);
        removeFromTable(slot);
        slots[slot * STRIDE + KEY] = key;
        index(mix(key), slot);
        return slot;
    }

    private void index(long hash, int slot) {
        int mask = table.length - 1;
        int i = home(hash);
        while (table[i] != 0) {
            i = (i + 1) & mask;
        }
        table[i] = (hash & HIGH) | (slot + 1);
    }

    private void remove(int slot) {
        unlink(slot);
        removeFromTable(slot);
        links(slot, NONE, free);
        free = slot;
        size--;
    }

    private void removeFromTable(int slot) {
        int mask = table.length - 1;
        int i = home(mix(slots[slot * STRIDE + KEY]));
        while ((table[i] & LOW) != slot + 1) {
            i = (i + 1) & mask;
        }
        table[i] = 0;
        // Backward-shift: move later cells of the probe run into the hole unless their home lies after it.
        for (int j = (i + 1) & mask; table[j] != 0; j = (j + 1) & mask) {
            int k = home(table[j]);
            boolean staysPut = i <= j ? (i < k && k <= j) : (i < k || k <= j);
            if (!staysPut) {
                table[i] = table[j];
                table[j] = 0;
                i = j;
            }
        }
    }

    private int prev(int slot) {
        return (int) (slots[slot * STRIDE + LINKS] >> 32);
    }

    private int next(int slot) {
        return (int) slots[slot * STRIDE + LINKS];
    }

    private void links(int slot, int prev, int next) {
        slots[slot * STRIDE + LINKS] = ((long) prev << 32) | (next & LOW);
    }

    private void next(int slot, int next) {
        int at = slot * STRIDE + LINKS;
        slots[at] = (slots[at] & HIGH) | (next & LOW);
    }

    private void unlink(int slot) {
        int p = prev(slot);
        int n = next(slot);
        if (p == NONE) {
            head = n;
        } else {
            next(p, n);
        }
        if (n == NONE) {
            tail = p;
        } else {
            slots[n * STRIDE + LINKS] = ((long) p << 32) | (slots[n * STRIDE + LINKS] & LOW);
        }
    }

    private void linkLast(int slot) {
        links(slot, tail, NONE);
        if (tail == NONE) {
            head = slot;
        } else {
            next(tail, slot);
        }
        tail = slot;
    }

    private void allocate(int count) {
        slots = new long[count * STRIDE];
        room = count;
        int tableLength = Integer.highestOneBit(Math.max(2, count * 4 - 1)) << 1;
        table = new long[tableLength];
        shift = 64 - Integer.numberOfTrailingZeros(tableLength);
        used = 0;
        free = NONE;
    }

    /** Reallocates for {@code count} entries and re-inserts the live ones in recency order. */
    private void rebuild(int count) {
        long[] old = slots;
        int oldHead = head;
        allocate(count);
        head = NONE;
        tail = NONE;
        size = 0;
        for (int slot = oldHead; slot != NONE; slot = (int) old[slot * STRIDE + LINKS]) {
            int copy = insert(old[slot * STRIDE + KEY]);
            slots[copy * STRIDE + DEADLINE] = old[slot * STRIDE + DEADLINE];
            slots[copy * STRIDE + CONFIRMED] = old[slot * STRIDE + CONFIRMED];
            linkLast(copy);
        }
    }
}
