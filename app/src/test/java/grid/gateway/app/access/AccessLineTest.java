package grid.gateway.app.access;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.select.AffinityOutcome;
import jakarta.json.Json;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonGeneratorFactory;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The hand-written line is byte for byte what the jakarta.json generator wrote for the same record. */
class AccessLineTest {
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final JsonGeneratorFactory FACTORY = Json.createGeneratorFactory(Map.of());

    private final AccessLine line = new AccessLine();

    @Test
    void format_manyRecords_sameBytesAsTheGenerator() {
        SplittableRandom random = new SplittableRandom(14);
        for (int i = 0; i < 2_000; i++) {
            AccessRecord record = new AccessRecord(text(random), i % 2 == 0 ? "POST" : "GET", 0)
                    .logged(Instant.ofEpochMilli(random.nextLong(0, 4_102_444_800_000L)), text(random));
            boolean routed = random.nextBoolean();
            record.path = random.nextInt(5) == 0 ? null : text(random);
            record.cluster = routed ? new ClusterId(new SiteName("east"), "east-a") : null;
            record.storedIdOwner = random.nextBoolean() ? new ClusterId(new SiteName("west"), "west-b") : null;
            record.pinned = random.nextBoolean();
            record.affinity = routed ? AffinityOutcome.values()[random.nextInt(AffinityOutcome.values().length)] : null;
            record.runBlocks = random.nextInt(513);
            record.candidates = random.nextInt(-1, 4);
            record.reportedCachedTokens = random.nextLong(-1, 1L << 40);
            record.upstreamStatus = random.nextBoolean() ? -1 : 200 + random.nextInt(400);
            record.upstreamFailure = random.nextBoolean() ? UpstreamFailure.TIMEOUT : null;
            record.upstreamHeadersNanos = random.nextBoolean() ? -1 : random.nextLong(0, 1L << 50);
            record.bytesIn = random.nextLong(0, 1L << 40);
            AccessLine.Finish finish = new AccessLine.Finish(
                    random.nextInt(-1, 600),
                    random.nextLong(0, 1L << 40),
                    random.nextInt(10) == 0 ? 0 : random.nextLong(0, 1L << 52),
                    Ending.values()[random.nextInt(Ending.values().length)]);

            assertThat(line.format(record, finish)).isEqualTo(generated(record, finish));
        }
    }

    /** Text of every kind a field could hold: control characters, quotes, backslashes, non-ASCII, surrogates. */
    private static String text(SplittableRandom random) {
        String alphabet = "ab/{}-_.:\"\\\u0000\u0001\u001f\u007f\b\f\n\r\t é中\ud83d\ude00\u2028";
        StringBuilder text = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /** The line as AccessLine wrote it with the jakarta.json generator. */
    private static String generated(AccessRecord record, AccessLine.Finish finish) {
        StringWriter text = new StringWriter(512);
        try (JsonGenerator json = FACTORY.createGenerator(text)) {
            json.writeStartObject();
            json.write("time", TIME.format(record.time));
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
            string(json, "affinity", record.affinity == null ? null : record.affinity.label());
            boolean routed = record.cluster != null;
            number(json, "run_blocks", routed ? record.runBlocks : -1);
            number(json, "candidates", record.candidates);
            number(json, "predicted_cached_tokens", routed ? record.runBlocks * 64L : -1);
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
        }
        return text.append('\n').toString();
    }

    private static void string(JsonGenerator json, String name, @Nullable String value) {
        if (value == null) {
            json.writeNull(name);
        } else {
            json.write(name, value);
        }
    }

    private static void number(JsonGenerator json, String name, long value) {
        if (value < 0) {
            json.writeNull(name);
        } else {
            json.write(name, value);
        }
    }

    private static void millis(JsonGenerator json, String name, long nanos) {
        if (nanos < 0) {
            json.writeNull(name);
        } else {
            json.write(name, Math.round(nanos / 1_000.0) / 1_000.0);
        }
    }
}
