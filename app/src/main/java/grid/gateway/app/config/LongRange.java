package grid.gateway.app.config;

import java.math.BigInteger;
import java.time.Duration;

/**
 * The integers a config key accepts, and how a problem states them.
 *
 * <p>Thread-safe (immutable).
 *
 * @param min the smallest value accepted
 * @param max the largest value accepted
 * @param below the expectation shown for a value under {@code min}, such as {@code > 0}
 * @param above the expectation shown for a value over {@code max}
 */
record LongRange(long min, long max, String below, String above) {
    /** Listener ports: 0 binds any free port. */
    static final LongRange PORT = new LongRange(0, 65_535, "0..65535", "0..65535");

    /** Why a duration has an upper bound. */
    private static final String CLOCK = ", what the monotonic clock holds in nanoseconds";

    /** Any integer above 0 that Java's {@code long} holds. */
    static LongRange positive() {
        return atMost(Long.MAX_VALUE, "");
    }

    /** 1 to {@code max}; {@code why} explains the bound, starting with ", ". */
    static LongRange atMost(long max, String why) {
        return new LongRange(1, max, "> 0", "at most " + max + why);
    }

    /** Milliseconds above 0 whose nanoseconds fit a {@code long}. */
    static LongRange millis() {
        return atMost(Duration.ofNanos(Long.MAX_VALUE).toMillis(), CLOCK);
    }

    /** Seconds above 0 whose nanoseconds fit a {@code long}. */
    static LongRange seconds() {
        return atMost(Duration.ofNanos(Long.MAX_VALUE).toSeconds(), CLOCK);
    }

    /** What a value of the wrong type is told, such as {@code an integer > 0}. */
    String typeExpected() {
        return "an integer " + (Character.isDigit(below.charAt(0)) ? "in " : "") + below;
    }

    /** The expectation {@code value} misses, or empty when it is in range. */
    String problem(BigInteger value) {
        if (value.compareTo(BigInteger.valueOf(min)) < 0) {
            return below;
        }
        return value.compareTo(BigInteger.valueOf(max)) > 0 ? above : "";
    }
}
