package grid.gateway.app.access;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The access line's {@code time}: ISO 8601 in UTC with milliseconds ({@code 2026-01-02T03:04:05.678Z}), exactly what
 * {@code DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'")} writes.
 *
 * <p>A formatter costs a parse context and a few objects per call; every request of one second shares the text up to
 * the seconds, so the formatter writes that prefix once per second and each line appends only its milliseconds and
 * {@code Z}. The prefix comes from the same pattern, so every year, leap day and year boundary formats as the
 * pattern writes it.
 *
 * <p>Thread-safe: the cached second is one immutable object behind a volatile field; two threads that race on a new
 * second both compute the same prefix and either one's stays.
 */
final class AccessTime {
    private static final DateTimeFormatter SECOND =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.").withZone(ZoneOffset.UTC);
    private static final int NANOS_PER_MILLI = 1_000_000;
    /** {@code 2026-01-02T03:04:05.}: the usual length of the second's text. */
    private static final int PREFIX_LENGTH = 20;

    private volatile Second cached = new Second(Long.MIN_VALUE, "");

    /** {@code time} as the access line writes it. */
    String format(Instant time) {
        StringBuilder text = new StringBuilder(PREFIX_LENGTH + 4);
        appendTo(text, time);
        return text.toString();
    }

    /** Appends {@code time} as the access line writes it to {@code text} (no character of it needs a JSON escape). */
    void appendTo(StringBuilder text, Instant time) {
        long epochSecond = time.getEpochSecond();
        Second second = cached;
        if (second.epochSecond != epochSecond) {
            second = new Second(epochSecond, SECOND.format(time));
            cached = second;
        }
        int millis = time.getNano() / NANOS_PER_MILLI;
        text.append(second.prefix);
        if (millis < 100) {
            text.append('0');
        }
        if (millis < 10) {
            text.append('0');
        }
        text.append(millis).append('Z');
    }

    private record Second(long epochSecond, String prefix) {}
}
