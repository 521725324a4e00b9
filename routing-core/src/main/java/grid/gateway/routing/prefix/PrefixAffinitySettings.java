package grid.gateway.routing.prefix;

import java.time.Duration;

/**
 * The {@code plugins.grid_site_route.prefix_affinity} block (SPEC §7; the seed's "Settings"). Every field has a
 * default, so the block is optional.
 *
 * <p>Thread-safe (immutable).
 *
 * @param capacity prefix entries per backend cluster LRU; default 16384
 * @param ttl how long a confirmed entry counts; seconds in YAML ({@code ttl_secs}); default 600 s; must fit the
 *     monotonic clock in nanoseconds
 * @param prefillTokensPerSecond prefill rate that prices a match; default 10000
 * @param queuedRequestSeconds seconds one queued request costs; default 2
 */
public record PrefixAffinitySettings(
        int capacity, Duration ttl, double prefillTokensPerSecond, double queuedRequestSeconds) {

    /** The seed's default capacity. */
    public static final int DEFAULT_CAPACITY = 16_384;
    /** The seed's default TTL. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(600);
    /** SPEC §6 default. */
    public static final double DEFAULT_PREFILL_TOKENS_PER_SECOND = 10_000;
    /** SPEC §6 default. */
    public static final double DEFAULT_QUEUED_REQUEST_SECONDS = 2;

    /** Refuses values outside their range, naming the YAML key. */
    public PrefixAffinitySettings {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity: " + capacity + " (expected: > 0)");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl_secs: " + ttl.toSeconds() + " (expected: > 0)");
        }
        if (ttl.compareTo(Duration.ofNanos(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("ttl_secs: " + ttl.toSeconds()
                    + " (expected: at most " + Duration.ofNanos(Long.MAX_VALUE).toSeconds()
                    + ", what the monotonic clock holds in nanoseconds)");
        }
        if (!(prefillTokensPerSecond > 0) || Double.isInfinite(prefillTokensPerSecond)) {
            throw new IllegalArgumentException(
                    "prefill_tokens_per_second: " + prefillTokensPerSecond + " (expected: a finite number > 0)");
        }
        if (!(queuedRequestSeconds > 0) || Double.isInfinite(queuedRequestSeconds)) {
            throw new IllegalArgumentException(
                    "queued_request_seconds: " + queuedRequestSeconds + " (expected: a finite number > 0)");
        }
    }

    /** The defaults, as when the operator writes no block. */
    public static PrefixAffinitySettings defaults() {
        return new PrefixAffinitySettings(
                DEFAULT_CAPACITY, DEFAULT_TTL, DEFAULT_PREFILL_TOKENS_PER_SECOND, DEFAULT_QUEUED_REQUEST_SECONDS);
    }

    /** The TTL in nanoseconds (always fits: checked on construction). */
    public long ttlNanos() {
        return ttl.toNanos();
    }
}
