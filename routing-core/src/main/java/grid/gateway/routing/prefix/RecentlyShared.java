package grid.gateway.routing.prefix;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Which prefixes this replica published recently, per cluster, so that a confirmation sends its peers only what is
 * news to them (docs/prefix-sharing.md, "Only the new tail"). A turn of a conversation re-confirms its whole prefix,
 * but its peers learned that prefix from the previous turn; only the new tail is news.
 *
 * <pre>
 *   sentRun(c, keys, t)        the longest leading run of keys published for c, every key of it within the refresh
 *                              interval before t: the confirmation sends keys[run..] only (all of them: nothing)
 *   published(c, keys, run, t) keys[run..] went out at t
 *   dropped(c)                 c dropped keys: the next confirmations there are sent in full
 * </pre>
 *
 * Block keys chain (each depends on every block before it), so one key names its whole prefix: the table holds
 * anchors, a prefix's last key (and every {@value #ANCHOR_EVERY}th key, for a next turn that rewrites the end of the
 * last block) with the oldest time any key of that prefix was last sent. A lookup walks the request's keys from the
 * end to the first anchor still within the refresh interval.
 *
 * <p>What the peers lose is the refresh of the keys left out: their deadline and recency there stay those of the last
 * time the keys were sent. A prefix is sent again in full once its oldest sending is a refresh interval old, so a
 * peer's deadline is at most one refresh interval earlier than the publisher's (the peer forgets early, never late),
 * and its recency is at most that stale. A drop forgets the cluster's anchors: a longer prefix holding the dropped
 * keys must not be taken for sent.
 *
 * <p>A cluster is named by any string that names it alone (the sharing stream's site and digest). The table is
 * lossy by design: one direct-mapped slot a key hash, a collision replaces the older anchor, so a prefix may be sent
 * again early, never withheld wrongly (slots compare the whole key).
 *
 * <p>Not thread-safe: owned by the one publishing thread.
 */
public final class RecentlyShared {
    /** Anchor slots a cluster's table holds (256 KiB). */
    public static final int SLOTS = 1 << 14;
    /** Besides a prefix's last key, every this many keys is an anchor. */
    public static final int ANCHOR_EVERY = 32;

    private static final long MIX = 0x9E3779B97F4A7C15L;
    private static final long EMPTY = Long.MIN_VALUE;

    private final Map<String, Table> tables = new HashMap<>();

    /**
     * A leading run already sent.
     *
     * @param length its keys
     * @param sentSince the oldest time one of them was last sent (meaningless when {@code length} is 0)
     */
    public record Run(int length, long sentSince) {
        static final Run NONE = new Run(0, 0);
    }

    /** A cluster's anchors: each key with its prefix's oldest sending. */
    private static final class Table {
        final long[] keys = new long[SLOTS];
        final long[] since = new long[SLOTS];

        Table() {
            Arrays.fill(since, EMPTY);
        }
    }

    /** An empty filter. */
    public RecentlyShared() {}

    /**
     * The longest leading run of {@code keys} whose every key was sent for {@code cluster} less than {@code refresh}
     * before {@code now} (any one time unit, the same for every call).
     */
    public Run sentRun(String cluster, long[] keys, long now, long refresh) {
        Table table = tables.get(cluster);
        if (table == null) {
            return Run.NONE;
        }
        for (int end = keys.length - 1; end >= 0; end--) {
            int slot = slot(keys[end]);
            long since = table.since[slot];
            if (since != EMPTY && table.keys[slot] == keys[end] && now - since < refresh) {
                return new Run(end + 1, since);
            }
        }
        return Run.NONE;
    }

    /** {@code keys} after {@code run} were sent for {@code cluster} at {@code now}: its prefixes become anchors. */
    public void published(String cluster, long[] keys, Run run, long now) {
        if (keys.length == 0) {
            return;
        }
        Table table = tables.computeIfAbsent(cluster, c -> new Table());
        long since = run.length() == 0 ? now : run.sentSince();
        for (int i = ANCHOR_EVERY - 1; i < keys.length - 1; i += ANCHOR_EVERY) {
            anchor(table, keys[i], since);
        }
        anchor(table, keys[keys.length - 1], since);
    }

    /** {@code cluster} dropped keys: none of its prefixes counts as sent any more. */
    public void dropped(String cluster) {
        tables.remove(cluster);
    }

    /** Forgets every cluster not in {@code live}. */
    public void retain(Set<String> live) {
        tables.keySet().retainAll(live);
    }

    private static void anchor(Table table, long key, long since) {
        int slot = slot(key);
        if (table.keys[slot] == key && table.since[slot] != EMPTY) {
            // Another prefix through this key may have been refreshed more lately: keep the later time.
            table.since[slot] = Math.max(table.since[slot], since);
        } else {
            table.keys[slot] = key;
            table.since[slot] = since;
        }
    }

    private static int slot(long key) {
        return (int) ((key * MIX) >>> (Long.SIZE - Integer.numberOfTrailingZeros(SLOTS)));
    }
}
