package grid.gateway.conformance.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Client-side accounting of a soak: every request sent ends in exactly one way — an answer with a status (read to
 * its end), an abnormal end (expected only for injected resets), a client abort (the soak's own), or a hang (no end
 * within the deadline; always a failure) — and each is compared with what its kind expects.
 *
 * <p>Thread-safe: concurrent counters; problems are kept under a lock, at most 50.
 */
final class Tally {
    /** How one request ended. */
    enum End {
        /** An answer read to its end. */
        ANSWERED,
        /** The answer broke off (reset, truncated chunked body) or no answer came (connection closed). */
        ABNORMAL,
        /** The soak's client closed the stream on purpose. */
        CLIENT_ABORT,
        /** Nothing ended within the deadline. */
        HUNG
    }

    private final LongAdder sent = new LongAdder();
    private final ConcurrentMap<String, LongAdder> byStatus = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> byKind = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> byEnd = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, LongAdder> unexpected = new ConcurrentHashMap<>();
    private final List<String> problems = new ArrayList<>();

    void sent() {
        sent.increment();
    }

    /** Records how one request of {@code kind} ended, and whether that was what the kind expects. */
    void ended(String kind, End end, int status, boolean asExpected, String detail) {
        count(byEnd, end.name().toLowerCase(java.util.Locale.ROOT));
        count(byStatus, status < 0 ? "none" : Integer.toString(status));
        count(byKind, kind + (asExpected ? "" : " (UNEXPECTED)"));
        if (!asExpected) {
            count(unexpected, kind + ": " + end + " " + status);
            synchronized (problems) {
                if (problems.size() < 50) {
                    problems.add(kind + ": " + end + " " + status + " " + detail);
                }
            }
        }
    }

    long sentCount() {
        return sent.sum();
    }

    long endedCount() {
        return byEnd.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long unexpectedCount() {
        return unexpected.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long hungCount() {
        LongAdder hung = byEnd.get("hung");
        return hung == null ? 0 : hung.sum();
    }

    Map<String, Long> byStatus() {
        return snapshot(byStatus);
    }

    Map<String, Long> byKind() {
        return snapshot(byKind);
    }

    Map<String, Long> byEnd() {
        return snapshot(byEnd);
    }

    Map<String, Long> unexpected() {
        return snapshot(unexpected);
    }

    List<String> problems() {
        synchronized (problems) {
            return List.copyOf(problems);
        }
    }

    private static void count(ConcurrentMap<String, LongAdder> map, String key) {
        map.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    private static Map<String, Long> snapshot(ConcurrentMap<String, LongAdder> map) {
        Map<String, Long> copy = new TreeMap<>();
        map.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }
}
