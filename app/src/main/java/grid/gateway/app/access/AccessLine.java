package grid.gateway.app.access;

import grid.gateway.routing.select.AffinityOutcome;
import java.util.Arrays;

/**
 * One access log line: a JSON object on one line, its fields in the order docs/operations.md lists them, a field
 * that does not apply written as {@code null} (so every line has every field).
 *
 * <p>Written by {@link AccessJson} into a reused {@link LineBuffer}, with the timestamp's second formatted once
 * ({@link AccessTime}): no generator, writer or formatter per line.
 *
 * <p>Thread-safe: the timestamp cache is, and each line gets its own buffer.
 */
final class AccessLine {
    private static final long TOKENS_PER_BLOCK = 64;
    /** {@link AffinityOutcome#label()} lower-cases its name per call; the line takes these, built once. */
    private static final String[] AFFINITY_LABELS =
            Arrays.stream(AffinityOutcome.values()).map(AffinityOutcome::label).toArray(String[]::new);

    private final AccessTime time = new AccessTime();

    /**
     * Writes the line for {@code record} to {@code sink}, as UTF-8 bytes with its newline.
     *
     * @param record what the request did
     * @param finish how it ended
     * @param sink where the line goes
     */
    void write(AccessRecord record, Finish finish, AccessSink sink) {
        LineBuffer buffer = filled(record, finish);
        try {
            // Encoded first: encoding a line longer than the buffer's bytes gives it a larger array.
            int length = buffer.encode();
            sink.write(buffer.bytes(), length);
        } finally {
            LineBuffer.discard(buffer);
        }
    }

    /**
     * The line for {@code record}, newline included, as text (what {@link #write} writes, decoded).
     *
     * @param record what the request did
     * @param finish how it ended
     */
    String format(AccessRecord record, Finish finish) {
        return LineBuffer.release(filled(record, finish));
    }

    /** A buffer holding the line's JSON, without its newline; the caller releases it. */
    private LineBuffer filled(AccessRecord record, Finish finish) {
        LineBuffer buffer = LineBuffer.take();
        try {
            AccessJson json = new AccessJson(buffer.text());
            json.time("time", time, record.time);
            json.string("request_id", record.requestId);
            json.string("method", record.method);
            json.string("path", record.path);
            json.count("status", finish.status());
            json.string(
                    "site",
                    record.cluster == null ? null : record.cluster.site().value());
            json.string("cluster", record.cluster == null ? null : record.cluster.name());
            json.string(
                    "stored_id_site",
                    record.storedIdOwner == null
                            ? null
                            : record.storedIdOwner.site().value());
            json.string("stored_id_cluster", record.storedIdOwner == null ? null : record.storedIdOwner.name());
            json.bool("pinned", record.pinned);
            AffinityOutcome affinity = record.affinity;
            json.string("affinity", affinity == null ? null : AFFINITY_LABELS[affinity.ordinal()]);
            boolean routed = record.cluster != null;
            json.count("run_blocks", routed ? record.runBlocks : -1);
            json.count("candidates", record.candidates);
            json.count("predicted_cached_tokens", routed ? record.runBlocks * TOKENS_PER_BLOCK : -1);
            json.count("reported_cached_tokens", record.reportedCachedTokens);
            json.count("upstream_status", record.upstreamStatus);
            json.string("upstream_failure", record.upstreamFailure == null ? null : record.upstreamFailure.label());
            json.millis("upstream_headers_ms", record.upstreamHeadersNanos);
            json.millis("total_ms", finish.totalNanos());
            json.number("bytes_in", record.bytesIn);
            json.number("bytes_out", finish.bytesOut());
            json.string("client", record.client);
            json.string("end", finish.ending().label());
            json.end();
        } catch (RuntimeException e) {
            LineBuffer.discard(buffer);
            throw e;
        }
        return buffer;
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
}
