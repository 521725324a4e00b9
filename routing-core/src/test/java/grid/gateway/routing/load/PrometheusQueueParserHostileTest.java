package grid.gateway.routing.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * "Never throws, linear time": random bytes, random token soup, pathological megabyte lines, and an oracle check on
 * generated well-formed expositions. Every loop is seeded, so a failure reproduces.
 */
class PrometheusQueueParserHostileTest {
    private static final int MEGABYTE = 1 << 20;
    private static final String[] NAMES = {
        "vllm:num_requests_waiting", "m", "vllm:num_requests_running", "m_total", "x:y_z"
    };
    private static final String[] SOUP = {
        "vllm:num_requests_waiting",
        "_total",
        "m",
        " ",
        "\t",
        "\r",
        "\n",
        "\r\n",
        "{",
        "}",
        "\"",
        "\\",
        "\\\"",
        "=",
        ",",
        "#",
        "# EOF",
        "# HELP ",
        "# TYPE ",
        "engine",
        "model_name",
        "le",
        "0",
        "1",
        "3.5",
        "-",
        "+",
        ".",
        "e",
        "E",
        "Inf",
        "NaN",
        "9999",
        "é",
        "\u0000",
        "\uFFFF",
        "\uD800"
    };

    private final PrometheusQueueParser parser = new PrometheusQueueParser();

    private void assertSane(String exposition) {
        for (String name : NAMES) {
            OptionalDouble sum = parser.sum(exposition, name);
            if (sum.isPresent()) {
                assertThat(Double.isFinite(sum.getAsDouble())).isTrue();
            }
        }
    }

    @Test
    void sum_megabyteOfRandomBytes_neverThrows() {
        SplittableRandom random = new SplittableRandom(0x5EED_0001L);
        byte[] bytes = new byte[MEGABYTE];
        random.nextBytes(bytes);
        // Latin-1 keeps every byte as one char (CR, LF, quotes and braces included); UTF-8 adds replacement chars.
        assertSane(new String(bytes, StandardCharsets.ISO_8859_1));
        assertSane(new String(bytes, StandardCharsets.UTF_8));
    }

    @Test
    void sum_megabyteOfTokenSoup_neverThrows() {
        SplittableRandom random = new SplittableRandom(0x5EED_0002L);
        for (int trial = 0; trial < 8; trial++) {
            StringBuilder text = new StringBuilder(MEGABYTE / 8 + 32);
            while (text.length() < MEGABYTE / 8) {
                text.append(SOUP[random.nextInt(SOUP.length)]);
            }
            assertSane(text.toString());
        }
    }

    @Test
    void sum_shortTokenSoup_neverThrows() {
        SplittableRandom random = new SplittableRandom(0x5EED_0003L);
        for (int trial = 0; trial < 20_000; trial++) {
            StringBuilder text = new StringBuilder();
            int tokens = random.nextInt(12);
            for (int i = 0; i < tokens; i++) {
                text.append(SOUP[random.nextInt(SOUP.length)]);
            }
            assertSane(text.toString());
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void sum_pathologicalMegabyteLines_linearAndSkipped() {
        String endless = "m{a=\"" + "\\\"".repeat(MEGABYTE / 2) + "\nm 1";
        String manyLabels = "m{" + "a=\"b\",".repeat(MEGABYTE / 6) + "\nm 1";
        String manyBraces = "m" + "{".repeat(MEGABYTE) + "\nm 1";
        String longValue = "m " + "9".repeat(MEGABYTE) + "\nm 1";
        String longTimestamp = "m 2 " + "9".repeat(MEGABYTE) + "\nm 1";
        String blanks = "m" + " ".repeat(MEGABYTE) + "\nm 1";
        String longName = "m".repeat(MEGABYTE) + " 5\nm 1";
        for (String text : new String[] {endless, manyLabels, manyBraces, longValue, longTimestamp, blanks, longName}) {
            assertThat(parser.sum(text, "m")).hasValue(1.0);
        }
        assertThat(parser.sum(longName, "m".repeat(MEGABYTE))).hasValue(5.0);
        // A megabyte of one series counts it once; of distinct series, each.
        assertThat(parser.sum("m 1\n".repeat(MEGABYTE / 4), "m")).hasValue(1.0);
        StringBuilder distinct = new StringBuilder();
        int series = 0;
        while (distinct.length() < MEGABYTE) {
            distinct.append("m{p=\"").append(series++).append("\"} 1\n");
        }
        assertThat(parser.sum(distinct.toString(), "m")).hasValue(series);
    }

    /** An exposition with a known answer: the test writes each line and adds its value when it should count. */
    private record Generated(String text, OptionalDouble expected) {
        @Override
        public String toString() {
            return text.length() > 2_000 ? text.substring(0, 2_000) + "..." : text;
        }
    }

    private static Generated generate(SplittableRandom random) {
        StringBuilder text = new StringBuilder();
        double total = 0;
        boolean found = false;
        Set<String> series = new HashSet<>();
        int lines = random.nextInt(40);
        for (int i = 0; i < lines; i++) {
            String eol = random.nextBoolean() ? "\n" : "\r\n";
            int kind = random.nextInt(6);
            if (kind == 0) {
                text.append(random.nextBoolean() ? "# HELP m queued requests" : "# TYPE m gauge")
                        .append(eol);
                continue;
            }
            String name = kind == 1 ? new String[] {"m_total", "mm", "m:x", "other"}[random.nextInt(4)] : "m";
            int half = random.nextInt(200) - 20;
            String value = formatHalves(random, half);
            boolean nonFinite = random.nextInt(10) == 0;
            if (nonFinite) {
                value = new String[] {"NaN", "+Inf", "-Inf"}[random.nextInt(3)];
            }
            List<String> pairs = new ArrayList<>();
            text.append(random.nextBoolean() ? "" : " ")
                    .append(name)
                    .append(labels(random, pairs))
                    .append(' ')
                    .append(value)
                    .append(timestamp(random))
                    .append(eol);
            pairs.sort(null);
            // A series (its label pairs as written, in any order) repeated on the page counts once: its first sample.
            if (name.equals("m") && !nonFinite && series.add(String.join(",", pairs))) {
                total += half / 2.0;
                found = true;
            }
        }
        return new Generated(text.toString(), found ? OptionalDouble.of(total) : OptionalDouble.empty());
    }

    private static String formatHalves(SplittableRandom random, int half) {
        double value = half / 2.0;
        return switch (random.nextInt(4)) {
            case 0 -> Double.toString(value);
            case 1 -> (half % 2 == 0 ? Integer.toString(half / 2) : Double.toString(value));
            case 2 -> (half * 5) + "e-1";
            default -> String.format(java.util.Locale.ROOT, "%+.3E", value);
        };
    }

    /** A label set, its pairs as written added to {@code pairs}. */
    private static String labels(SplittableRandom random, List<String> pairs) {
        if (random.nextInt(4) == 0) {
            return "";
        }
        String[] pieces = {"a", "Z", " ", "}", "{", ",", "=", "#", "é", "\\\\", "\\\"", "\\n", "# EOF", "0.5"};
        StringBuilder labels = new StringBuilder("{");
        int count = random.nextInt(4);
        for (int i = 0; i < count; i++) {
            StringBuilder pair = new StringBuilder("l").append(i).append("=\"");
            int length = random.nextInt(6);
            for (int j = 0; j < length; j++) {
                pair.append(pieces[random.nextInt(pieces.length)]);
            }
            pair.append('"');
            pairs.add(pair.toString());
            labels.append(i == 0 ? "" : ",").append(pair);
        }
        return labels.append(count > 0 && random.nextBoolean() ? ",}" : "}").toString();
    }

    private static String timestamp(SplittableRandom random) {
        return switch (random.nextInt(3)) {
            case 0 -> "";
            case 1 -> " " + random.nextLong(1L << 41);
            default -> " " + random.nextInt(1 << 30) + "." + random.nextInt(1000);
        };
    }

    @Test
    void sum_generatedWellFormedExpositions_matchesOracle() {
        SplittableRandom random = new SplittableRandom(0x5EED_0004L);
        for (int trial = 0; trial < 5_000; trial++) {
            Generated generated = generate(random);
            assertThat(parser.sum(generated.text(), "m"))
                    .as("trial %d: %s", trial, generated)
                    .isEqualTo(generated.expected());
        }
    }
}
