package grid.gateway.app.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The access line's timestamp is byte for byte what the formatter it replaced wrote. */
class AccessTimeTest {
    /** The formatter the access line used before the second's prefix was cached. */
    private static final DateTimeFormatter OLD =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final AccessTime time = new AccessTime();

    @Test
    void edgesFormatAsTheFormatterDid() {
        List<Instant> edges = new ArrayList<>();
        for (String base : List.of(
                "1970-01-01T00:00:00Z",
                "1999-12-31T23:59:59Z",
                "2000-02-29T12:00:00Z",
                "1900-02-28T23:59:59Z",
                "2024-02-29T23:59:59Z",
                "2026-12-31T23:59:59Z",
                "2027-01-01T00:00:00Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59Z",
                "1969-12-31T23:59:59Z")) {
            Instant second = Instant.parse(base);
            for (long nanos : new long[] {
                0, 1, 999_999, 1_000_000, 9_000_000, 10_000_000, 99_999_999, 100_000_000, 999_000_000, 999_999_999
            }) {
                edges.add(second.plusNanos(nanos));
            }
        }
        for (Instant instant : edges) {
            assertThat(time.format(instant)).as(instant::toString).isEqualTo(OLD.format(instant));
        }
    }

    @Test
    void manyInstantsFormatAsTheFormatterDid() {
        SplittableRandom random = new SplittableRandom(0x5eedL);
        long min = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
        long max = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        for (int i = 0; i < 200_000; i++) {
            Instant instant = Instant.ofEpochSecond(random.nextLong(min, max + 1), random.nextInt(1_000_000_000));
            assertThat(time.format(instant)).as(instant::toString).isEqualTo(OLD.format(instant));
        }
    }

    @Test
    void consecutiveRequestsAcrossSecondsAndBackFormatAsTheFormatterDid() {
        // A run of arrivals a few milliseconds apart over a year boundary, then a clock stepped back: the cached
        // second must follow both ways.
        Instant start = Instant.parse("2027-12-31T23:59:58.990Z");
        for (int i = 0; i < 3_000; i++) {
            Instant instant = start.plusNanos(i * 1_700_000L);
            assertThat(time.format(instant)).as(instant::toString).isEqualTo(OLD.format(instant));
        }
        for (int i = 3_000; i >= 0; i--) {
            Instant instant = start.plusNanos(i * 1_300_000L);
            assertThat(time.format(instant)).as(instant::toString).isEqualTo(OLD.format(instant));
        }
    }
}
