package grid.gateway.app.access;

import grid.gateway.routing.select.AffinityOutcome;
import jakarta.json.Json;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonGeneratorFactory;
import java.util.Arrays;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One access log line: a JSON object on one line, its fields in the order docs/operations.md lists them, a field
 * that does not apply written as {@code null} (so every line has every field).
 *
 * <p>Still written by the jakarta.json generator (the contract in docs/operations.md), created once by its factory;
 * what is cheaper than a {@code StringWriter} and a {@code DateTimeFormatter} per line is the text it writes into
 * ({@link LineBuffer}, reused) and the timestamp ({@link AccessTime}, the second's text cached).
 *
 * <p>Thread-safe: the generator factory and the timestamp cache are, and each line gets its own generator and buffer.
 */
final class AccessLine {
    private static final long TOKENS_PER_BLOCK = 64;
    /** {@link AffinityOutcome#label()} lower-cases its name per call; the line takes these, built once. */
    private static final String[] AFFINITY_LABELS =
            Arrays.stream(AffinityOutcome.values()).map(AffinityOutcome::label).toArray(String[]::new);

    private static final double MICROS_PER_MILLI = 1_000.0;

    private final JsonGeneratorFactory factory = Json.createGeneratorFactory(Map.of());
    private final AccessTime time = new AccessTime();

    /**
     * The line for {@code record}, newline included.
     *
     * @param record what the request did
     * @param finish how it ended
     */
    String format(AccessRecord record, Finish finish) {
        LineBuffer text = LineBuffer.take();
        try (JsonGenerator json = factory.createGenerator(text)) {
            json.writeStartObject();
            json.write("time", time.format(record.time));
            json.write("request_id", record.requestId);
            json.write("method", record.method);
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
            json.write("pinned", record.pinned);
            AffinityOutcome affinity = record.affinity;
            string(json, "affinity", affinity == null ? null : AFFINITY_LABELS[affinity.ordinal()]);
            boolean routed = record.cluster != null;
            number(json, "run_blocks", routed ? record.runBlocks : -1);
            number(json, "candidates", record.candidates);
            number(json, "predicted_cached_tokens", routed ? record.runBlocks * TOKENS_PER_BLOCK : -1);
            number(json, "reported_cached_tokens", record.reportedCachedTokens);
            number(json, "upstream_status", record.upstreamStatus);
            string(json, "upstream_failure", record.upstreamFailure == null ? null : record.upstreamFailure.label());
            millis(json, "upstream_headers_ms", record.upstreamHeadersNanos);
            millis(json, "total_ms", finish.totalNanos());
            json.write("bytes_in", record.bytesIn);
            json.write("bytes_out", finish.bytesOut());
            json.write("client", record.client);
            json.write("end", finish.ending().label());
            json.writeEnd();
        } catch (RuntimeException e) {
            LineBuffer.discard(text);
            throw e;
        }
        return LineBuffer.release(text);
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

    private static void string(JsonGenerator json, String name, @Nullable String value) {
        if (value == null) {
            json.writeNull(name);
        } else {
            json.write(name, value);
        }
    }

    /** A count, or null when negative (not known, or does not apply). */
    private static void number(JsonGenerator json, String name, long value) {
        if (value < 0) {
            json.writeNull(name);
        } else {
            json.write(name, value);
        }
    }

    /** A duration in milliseconds with microsecond precision, or null when negative. */
    private static void millis(JsonGenerator json, String name, long nanos) {
        if (nanos < 0) {
            json.writeNull(name);
        } else {
            json.write(name, Math.round(nanos / 1_000.0) / MICROS_PER_MILLI);
        }
    }
}
