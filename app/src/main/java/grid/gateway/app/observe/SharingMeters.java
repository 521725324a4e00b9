package grid.gateway.app.observe;

import io.helidon.metrics.api.Counter;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * The meters of prefix-memory sharing (docs/prefix-sharing.md): registered with every gateway, so that a dashboard shows a
 * replica that shares nothing as disconnected rather than as missing.
 *
 * <p>Thread-safe: counters are thread-safe, the gauges read volatile fields.
 */
public final class SharingMeters {
    /** Why an entry was not published or not applied: the {@code reason} label. */
    public enum Dropped {
        /** The publish queue was full: the oldest entry made room. */
        QUEUE_FULL,
        /** Redis refused or did not take the write (down, slow, restarting). */
        UNSENT,
        /** A peer's entry read while its cluster's apply worker was behind by a full queue: the oldest made room. */
        APPLY_QUEUE_FULL,
        /** A stream entry that is not a well-formed sharing entry. */
        MALFORMED,
        /** An entry for a cluster this replica does not know. */
        UNKNOWN_CLUSTER,
        /** A peer's confirmation already past its TTL when read. */
        EXPIRED;

        /** The label value. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final Counter published;
    private final Counter waitsApplied;
    private final Counter waitsTimedOut;
    private final Counter applied;
    private final Map<Dropped, Counter> dropped = new EnumMap<>(Dropped.class);
    private volatile boolean connected;
    private volatile double lagSeconds = Double.NaN;

    SharingMeters(MeterSet meters) {
        meters.gauge(GatewayMeter.SHARING_CONNECTED, () -> connected ? 1.0 : 0.0);
        meters.gauge(GatewayMeter.SHARING_LAG, () -> lagSeconds);
        published = meters.counter(GatewayMeter.SHARING_PUBLISHED);
        applied = meters.counter(GatewayMeter.SHARING_APPLIED);
        waitsApplied = meters.counter(GatewayMeter.SHARING_WAITS, "applied");
        waitsTimedOut = meters.counter(GatewayMeter.SHARING_WAITS, "timed_out");
        for (Dropped reason : Dropped.values()) {
            dropped.put(reason, meters.counter(GatewayMeter.SHARING_DROPPED, reason.label()));
        }
    }

    /** Whether the stream is being read now. */
    public void connected(boolean now) {
        connected = now;
    }

    /** Whether the stream is being read now (as the gauge shows it). */
    public boolean connected() {
        return connected;
    }

    /** {@code count} own entries were written. */
    public void published(int count) {
        published.increment(count);
    }

    /** A peer's entry confirmed or dropped {@code ageMillis} ago was applied. */
    public void applied(long ageMillis) {
        applied.increment();
        lagSeconds = Math.max(0, ageMillis) / 1_000.0;
    }

    /**
     * A confirmation waited ({@code sharing.confirm_wait_ms}) until every live peer applied it ({@code true}), or until
     * the wait was over.
     */
    public void waited(boolean applied) {
        (applied ? waitsApplied : waitsTimedOut).increment();
    }

    /** The entries not published or not applied for {@code reason} so far (the counter's value). */
    public long droppedSoFar(Dropped reason) {
        return GatewayMetrics.registered(dropped, reason).count();
    }

    /** The confirmations that waited for the peers so far: {@code applied} by all of them, or not. */
    public long waitsSoFar(boolean applied) {
        return (long) (applied ? waitsApplied : waitsTimedOut).count();
    }

    /** {@code count} entries were not published or not applied, for {@code reason}. */
    public void dropped(Dropped reason, int count) {
        GatewayMetrics.registered(dropped, reason).increment(count);
    }
}
