package grid.gateway.routing.prefix;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The {@code plugins.grid_site_route.prefix_affinity} block (docs/design.md §7; the seed's "Settings"). Every field has a
 * default, so the block is optional.
 *
 * <p>Thread-safe (immutable).
 *
 * @param capacity prefix entries per backend cluster LRU; default 16384
 * @param ttl how long a confirmed entry counts; seconds in YAML ({@code ttl_secs}); default 600 s; must fit the
 *     monotonic clock in nanoseconds
 * @param prefillTokensPerSecond prefill rate that prices a match; default 10000
 * @param queuedRequestSeconds seconds one queued request costs; default 2
 * @param auto which of capacity, prefill rate and queued-request cost are measured per cluster ({@code auto} in
 *     YAML); the numbers above are then what an unmeasured cluster uses
 * @param learnFromUsage whether the engines' reported cached tokens correct the memory ({@code learn_from_usage})
 */
public record PrefixAffinitySettings(
        int capacity,
        Duration ttl,
        double prefillTokensPerSecond,
        double queuedRequestSeconds,
        Calibrated auto,
        boolean learnFromUsage) {

    /**
     * Which settings are measured per backend cluster from its engines' own metrics instead of taken as written.
     *
     * @param capacity {@code capacity: auto}
     * @param prefillTokensPerSecond {@code prefill_tokens_per_second: auto}
     * @param queuedRequestSeconds {@code queued_request_seconds: auto}
     */
    public record Calibrated(boolean capacity, boolean prefillTokensPerSecond, boolean queuedRequestSeconds) {
        /** Nothing measured: the seed's behaviour. */
        public static final Calibrated NONE = new Calibrated(false, false, false);
        /** Everything measured. */
        public static final Calibrated ALL = new Calibrated(true, true, true);

        /** Whether anything is measured. */
        public boolean any() {
            return capacity || prefillTokensPerSecond || queuedRequestSeconds;
        }
    }

    /** Settings without calibration or usage learning, as the seed has them. */
    public PrefixAffinitySettings(
            int capacity, Duration ttl, double prefillTokensPerSecond, double queuedRequestSeconds) {
        this(capacity, ttl, prefillTokensPerSecond, queuedRequestSeconds, Calibrated.NONE, false);
    }

    /** The seed's default capacity. */
    public static final int DEFAULT_CAPACITY = 16_384;
    /** The seed's default TTL. */
    public static final Duration DEFAULT_TTL = Duration.ofMinutes(10);
    /** docs/design.md §6 default. */
    public static final double DEFAULT_PREFILL_TOKENS_PER_SECOND = 10_000;
    /** docs/design.md §6 default. */
    public static final double DEFAULT_QUEUED_REQUEST_SECONDS = 2;

    /** Refuses values outside their range, naming the YAML key. */
    public PrefixAffinitySettings {
        requireNonNull(auto, "auto");
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

    /** These settings with {@code auto} and {@code learnFromUsage} replaced. */
    public PrefixAffinitySettings with(Calibrated newAuto, boolean newLearnFromUsage) {
        return new PrefixAffinitySettings(
                capacity, ttl, prefillTokensPerSecond, queuedRequestSeconds, newAuto, newLearnFromUsage);
    }

    /** The TTL in nanoseconds (always fits: checked on construction). */
    public long ttlNanos() {
        return ttl.toNanos();
    }
}
