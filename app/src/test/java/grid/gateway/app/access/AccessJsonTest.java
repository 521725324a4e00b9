package grid.gateway.app.access;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.UpstreamFailure;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.select.AffinityOutcome;
import grid.gateway.routing.testing.SeededTrials;
import jakarta.json.Json;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonGeneratorFactory;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Map;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The hand-written access line is byte for byte what the jakarta.json generator (Parsson) wrote before it: the same
 * escaping of every character, the same numbers, the same nulls, in the same order. The reference here is the
 * generator itself, driven as {@code AccessLine} once drove it.
 */
class AccessJsonTest {
    private static final JsonGeneratorFactory PARSSON = Json.createGeneratorFactory(Map.of());
    /** What a string can hold: every control character, the two escaped ones, ASCII, Latin-1, BMP, surrogates. */
    private static final String ALPHABET = "\u0000\u0001\b\t\n\u000b\f\r\u001f\u007f\"\\/ az09{}[]:,"
            + "\u00e9\u00ff\u0100\u2028\u2029\ud800\udbff\udc00\udfff\ufeff\uffff";

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"plain|\"plain\"", "a\"b|\"a\\\"b\"", "a\\b|\"a\\\\b\"", "/v1/x|\"/v1/x\""})
    void escapesAsJsonRequires(String value, String expected) {
        StringBuilder text = new StringBuilder();
        AccessJson.escaped(text, value);
        assertThat(text).hasToString(expected);
    }

    @Test
    void controlCharactersAreEscapedByNameOrInLowerCaseHex() {
        StringBuilder text = new StringBuilder();
        AccessJson.escaped(text, "\b\t\n\f\r\u0000\u001f\u001b");
        assertThat(text).hasToString("\"\\b\\t\\n\\f\\r\\u0000\\u001f\\u001b\"");
    }

    @Test
    void everyStringIsEscapedAsTheGeneratorEscapedIt() {
        SeededTrials.forAll(0xACCE55L, 20_000, AccessJsonTest::randomString, value -> {
            StringBuilder text = new StringBuilder();
            AccessJson.escaped(text, value);
            assertThat(text.toString()).isEqualTo(parssonString(value));
        });
    }

    @Test
    void everyLineIsWhatTheGeneratorWrote() {
        AccessLine line = new AccessLine();
        SeededTrials.forAll(
                0x11E5L,
                10_000,
                AccessJsonTest::randomLine,
                sample -> assertThat(line.format(sample.record(), sample.finish()))
                        .isEqualTo(parssonLine(sample.record(), sample.finish())));
    }

    @Test
    void aLineLongerThanAnyBufferKept_isWrittenToTheSinkWhole() {
        AccessLine line = new AccessLine();
        AccessRecord record = new AccessRecord("req-1", "GET", 0).logged(Instant.EPOCH, "127.0.0.1");
        // Longer than the byte array of any buffer kept for reuse: encoding it takes a larger one.
        record.path = "/not/served/" + "x".repeat(4 * LineBuffer.KEPT_CAPACITY);
        AccessLine.Finish finish = new AccessLine.Finish(404, 0, 1_000, Ending.REFUSED);
        AccessLines sink = new AccessLines();

        line.write(record, finish, sink);

        assertThat(sink.raw()).containsExactly(line.format(record, finish));
    }

    private record Sample(AccessRecord record, AccessLine.Finish finish) {
        @Override
        public String toString() {
            return "record " + record.requestId + " " + record.path + " finish " + finish;
        }
    }

    private static Sample randomLine(SplittableRandom random) {
        AccessRecord record = new AccessRecord(randomString(random), random.nextBoolean() ? "POST" : "GET", 0)
                .logged(Instant.ofEpochMilli(random.nextLong(0, 253_402_300_799_999L)), randomString(random));
        record.path = random.nextInt(4) == 0 ? null : randomString(random);
        record.cluster = random.nextBoolean() ? null : cluster(random);
        record.storedIdOwner = random.nextBoolean() ? null : cluster(random);
        record.pinned = random.nextBoolean();
        AffinityOutcome[] outcomes = AffinityOutcome.values();
        record.affinity = random.nextInt(outcomes.length + 1) == 0 ? null : outcomes[random.nextInt(outcomes.length)];
        record.runBlocks = random.nextInt(0, 513);
        record.candidates = random.nextInt(-1, 20);
        record.reportedCachedTokens = sometimesNegative(random, 1L << 40);
        record.upstreamStatus = (int) sometimesNegative(random, 600);
        UpstreamFailure[] failures = UpstreamFailure.values();
        record.upstreamFailure = random.nextBoolean() ? null : failures[random.nextInt(failures.length)];
        record.upstreamHeadersNanos = nanos(random);
        record.bytesIn = random.nextLong(0, 1L << 36);
        Ending[] endings = Ending.values();
        AccessLine.Finish finish = new AccessLine.Finish(
                (int) sometimesNegative(random, 600),
                random.nextLong(0, 1L << 36),
                nanos(random),
                endings[random.nextInt(endings.length)]);
        return new Sample(record, finish);
    }

    /** Durations from none to centuries, so that the milliseconds cross into {@code Double}'s E notation (1e7). */
    private static long nanos(SplittableRandom random) {
        return switch (random.nextInt(5)) {
            case 0 -> -1;
            case 1 -> random.nextLong(0, 10_000);
            case 2 -> random.nextLong(0, 10_000_000_000L);
            case 3 -> random.nextLong(9_000_000_000_000L, 11_000_000_000_000L);
            default -> random.nextLong(0, Long.MAX_VALUE);
        };
    }

    private static long sometimesNegative(SplittableRandom random, long bound) {
        return random.nextInt(4) == 0 ? -1 : random.nextLong(0, bound);
    }

    private static ClusterId cluster(SplittableRandom random) {
        return new ClusterId(new SiteName("s" + random.nextInt(100)), "c-" + randomString(random) + "x");
    }

    private static String randomString(SplittableRandom random) {
        int length = random.nextInt(4) == 0 ? 0 : random.nextInt(1, 40);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(
                    random.nextInt(3) == 0
                            ? (char) random.nextInt(0, 0x10000)
                            : ALPHABET.charAt(random.nextInt(ALPHABET.length())));
        }
        return text.toString();
    }

    private static String parssonString(String value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = PARSSON.createGenerator(out)) {
            json.write(value);
        }
        return out.toString();
    }

    /** The line as the generator wrote it, field for field as {@code AccessLine} once wrote it. */
    private static String parssonLine(AccessRecord record, AccessLine.Finish finish) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = PARSSON.createGenerator(out)) {
            json.writeStartObject();
            json.write("time", new AccessTime().format(record.time));
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
        return out + "\n";
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
