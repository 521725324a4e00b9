package grid.gateway.app.access;

import grid.gateway.routing.select.AffinityOutcome;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.jspecify.annotations.Nullable;

/**
 * One access log line: a JSON object on one line, its fields in the order docs/operations.md lists them, a field
 * that does not apply written as {@code null} (so every line has every field).
 *
 * <p>Written into one {@link StringBuilder} by hand, as the jakarta.json generator wrote it before (same bytes: no
 * white space, {@code "}, {@code \\} and control characters escaped, other characters as they are, milliseconds as
 * {@link Double#toString}): the generator, its writer and the date formatter were 7% of a request's CPU. The time's
 * text up to the second is formatted once a second.
 *
 * <p>Thread-safe: the cached second is an immutable holder in a volatile field; each line gets its own builder.
 */
final class AccessLine {
    private static final DateTimeFormatter SECOND =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);
    private static final long TOKENS_PER_BLOCK = 64;
    private static final double MICROS_PER_MILLI = 1_000.0;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /** An epoch second and its text. */
    private record Second(long epochSecond, String text) {}

    private volatile Second second = new Second(Long.MIN_VALUE, "");

    /**
     * The line for {@code record}, newline included.
     *
     * @param record what the request did
     * @param finish how it ended
     */
    String format(AccessRecord record, Finish finish) {
        StringBuilder json = new StringBuilder(512);
        json.append("{\"time\":\"");
        time(json, record.time);
        json.append("\",\"request_id\":");
        quoted(json, record.requestId);
        json.append(",\"method\":");
        quoted(json, record.method);
        string(json, "path", record.path);
        number(json, "status", finish.status());
        string(
                json,
                "site",
                record.cluster == null ? null : record.cluster.site().value());
        string(json, "cluster", record.cluster == null ? null : record.cluster.name());
        string(
                json,
                "stored_id_site",
                record.storedIdOwner == null
                        ? null
                        : record.storedIdOwner.site().value());
        string(json, "stored_id_cluster", record.storedIdOwner == null ? null : record.storedIdOwner.name());
        json.append(",\"pinned\":").append(record.pinned);
        AffinityOutcome affinity = record.affinity;
        string(json, "affinity", affinity == null ? null : affinity.label());
        boolean routed = record.cluster != null;
        number(json, "run_blocks", routed ? record.runBlocks : -1);
        number(json, "candidates", record.candidates);
        number(json, "predicted_cached_tokens", routed ? record.runBlocks * TOKENS_PER_BLOCK : -1);
        number(json, "reported_cached_tokens", record.reportedCachedTokens);
        number(json, "upstream_status", record.upstreamStatus);
        string(json, "upstream_failure", record.upstreamFailure == null ? null : record.upstreamFailure.label());
        millis(json, "upstream_headers_ms", record.upstreamHeadersNanos);
        millis(json, "total_ms", finish.totalNanos());
        json.append(",\"bytes_in\":").append(record.bytesIn);
        json.append(",\"bytes_out\":").append(finish.bytesOut());
        json.append(",\"client\":");
        quoted(json, record.client);
        json.append(",\"end\":");
        quoted(json, finish.ending().label());
        return json.append("}\n").toString();
    }

    /**
     * How the request ended, as the filter saw it.
     *
     * @param status the answer's status; negative when none went out
     * @param bytesOut answer body bytes written to the client
     * @param totalNanos from arrival to the end of the answer
     * @param ending how it ended
     */
    record Finish(int status, long bytesOut, long totalNanos, Ending ending) {}

    /** {@code uuuu-MM-dd'T'HH:mm:ss.SSS'Z'} in UTC; the part up to the second is formatted once per second. */
    private void time(StringBuilder json, Instant time) {
        long epochSecond = time.getEpochSecond();
        Second cached = second;
        if (cached.epochSecond() != epochSecond) {
            cached = new Second(epochSecond, SECOND.format(time));
            second = cached;
        }
        int millis = time.getNano() / 1_000_000;
        json.append(cached.text()).append('.');
        json.append((char) ('0' + millis / 100))
                .append((char) ('0' + millis / 10 % 10))
                .append((char) ('0' + millis % 10));
        json.append('Z');
    }

    private static void string(StringBuilder json, String name, @Nullable String value) {
        json.append(",\"").append(name).append("\":");
        if (value == null) {
            json.append("null");
        } else {
            quoted(json, value);
        }
    }

    /** A count, or null when negative (not known, or does not apply). */
    private static void number(StringBuilder json, String name, long value) {
        json.append(",\"").append(name).append("\":");
        if (value < 0) {
            json.append("null");
        } else {
            json.append(value);
        }
    }

    /** A duration in milliseconds with microsecond precision, or null when negative. */
    private static void millis(StringBuilder json, String name, long nanos) {
        json.append(",\"").append(name).append("\":");
        if (nanos < 0) {
            json.append("null");
        } else {
            json.append(Math.round(nanos / 1_000.0) / MICROS_PER_MILLI);
        }
    }

    /** A JSON string: quotes, backslashes and control characters escaped, every other character as it is. */
    static void quoted(StringBuilder json, String value) {
        json.append('"');
        int plain = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            json.append(value, plain, i);
            plain = i + 1;
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                case '\b' -> json.append("\\b");
                case '\f' -> json.append("\\f");
                default -> json.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        json.append(value, plain, value.length()).append('"');
    }
}
