package grid.gateway.routing.load;

import static java.util.Objects.requireNonNull;

import java.util.HashSet;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Sums the samples of one metric, over all its label sets, in a Prometheus text exposition (docs/design.md §6: the queue depth
 * is the sum of {@code queue_metric}, which for vLLM is one gauge per engine index and model name).
 *
 * <p>Reads the text format 0.0.4 and tolerates OpenMetrics 1.0 text as far as gauges go:
 *
 * <ul>
 *   <li>A sample line is {@code name [{labels}] value [timestamp]}, with spaces or tabs between the parts, a line
 *       break of {@code \n} or {@code \r\n}, and optionally leading blanks. The name must equal {@code metricName}
 *       exactly, so {@code vllm:num_requests_waiting_total} is not a sample of {@code vllm:num_requests_waiting}.
 *   <li>Label values are skipped, not decoded: an escape ({@code \"}, {@code \\}, {@code \n}, or any other
 *       backslash pair) never ends a value, and {@code '}'}, {@code ','} and blanks inside quotes are part of it.
 *   <li>The value and the optional timestamp are decimal numbers ({@code 3}, {@code -0}, {@code 1e3},
 *       {@code .5}, {@code 2.5E-3}); the timestamp may be integer milliseconds (0.0.4) or float seconds
 *       (OpenMetrics), and is not used. An OpenMetrics exemplar ({@code # ...} after the value) is ignored.
 *   <li>Lines whose first non-blank character is {@code #} ({@code # HELP}, {@code # TYPE}, other comments) and
 *       blank lines are skipped. A {@code # EOF} line ends the exposition; anything after it is ignored.
 * </ul>
 *
 * <p>A sample whose value is {@code NaN}, {@code +Inf} or {@code -Inf}, or that overflows a double, is ignored: a
 * queue depth is a finite count, and an engine that reports no number has not reported a depth. A line that does
 * not follow the grammar (an unclosed quote, a value of more than {@link #MAX_NUMBER_LENGTH} characters, hex
 * floats, trailing garbage, a name quoted in braces as Prometheus 3 UTF-8 names are) is skipped, and the other
 * lines still count. The result is empty when no line is a finite sample of the metric, or when {@code metricName}
 * is not a valid metric name; otherwise it is the sum, which is always finite (a sum past the double range is held
 * at {@code ±Double.MAX_VALUE}).
 *
 * <p>A series (the metric and one label set, whatever the labels' order) that appears more than once on a page, which
 * the text format forbids, counts once: its first sample that counts; the later ones are ignored, as Prometheus keeps
 * a series' first sample of a scrape and drops its duplicates (docs/decisions.md).
 *
 * <p>Never throws on any exposition. One hand-written pass, linear in the length of the text: each line is read
 * a fixed number of times (to find its end, to check for {@code # EOF}, to scan it) and never backtracked over, and
 * no regular expression runs on scraped text.
 *
 * <p>Thread-safe and stateless.
 */
public final class PrometheusQueueParser {
    /** The longest value or timestamp read, in characters; a longer one makes its line unparseable. */
    static final int MAX_NUMBER_LENGTH = 64;

    /**
     * The largest count read by {@link #sumOfCounts} and {@link #sumOfLabelProducts}: 2^53, beyond which a double no
     * longer holds every whole number, so no engine's count of requests, tokens or blocks is larger.
     */
    public static final double MAX_COUNT = 0x1p53;

    /** A parser; it holds no state, so one instance can serve every scrape. */
    public PrometheusQueueParser() {}

    /**
     * The sum of the finite samples of {@code metricName} in {@code exposition}, over every label set; empty when
     * there is none.
     */
    public OptionalDouble sum(String exposition, String metricName) {
        return sum(exposition, metricName, value -> value);
    }

    private static OptionalDouble sum(String exposition, String metricName, DoubleUnaryOperator kept) {
        requireNonNull(exposition, "exposition");
        requireNonNull(metricName, "metricName");
        if (!isMetricName(metricName)) {
            return OptionalDouble.empty();
        }
        return sumLines(exposition, metricName, line -> kept.applyAsDouble(line.sampleValue(metricName)));
    }

    /** Whether {@code value} is within [0, {@link #MAX_COUNT}] (NaN is not). */
    private static boolean isCount(double value) {
        return value >= 0 && value <= MAX_COUNT;
    }

    /**
     * The sum of the samples of {@code metricName} that can be a count, or a sum of seconds, over every label set:
     * finite and within [0, {@link #MAX_COUNT}]. A sample below 0 or above it is no reading of such a series and is
     * ignored as a NaN one is (the other label sets still count), so that a page's numbers, summed over its lines,
     * over pods and over rounds, never leave the double range. Empty when no sample counts.
     */
    public OptionalDouble sumOfCounts(String exposition, String metricName) {
        return sum(exposition, metricName, value -> isCount(value) ? value : Double.NaN);
    }

    /**
     * The sum over the samples of {@code metricName} of the product of their labels {@code labelNames} read as
     * numbers (vLLM's {@code cache_config_info} gauge carries its configuration as labels); a sample lacking one of
     * them, or whose label is no plain decimal or no count (below 0 or above {@link #MAX_COUNT}), is ignored. Empty
     * when no sample counts. Never throws.
     */
    public OptionalDouble sumOfLabelProducts(String exposition, String metricName, String... labelNames) {
        requireNonNull(exposition, "exposition");
        requireNonNull(metricName, "metricName");
        if (!isMetricName(metricName)) {
            return OptionalDouble.empty();
        }
        return sumLines(exposition, metricName, line -> {
            double product = 1;
            for (String label : labelNames) {
                double value = line.rewound().labelValue(metricName, label);
                product *= isCount(value) ? value : Double.NaN;
            }
            return product;
        });
    }

    private static OptionalDouble sumLines(
            String exposition, String metricName, ToDoubleFunction<ExpositionLine> valueOf) {
        double total = 0.0;
        boolean found = false;
        @Nullable Set<String> counted = null;
        int length = exposition.length();
        int lineStart = 0;
        while (lineStart < length) {
            int newline = exposition.indexOf('\n', lineStart);
            int lineEnd = newline < 0 ? length : newline;
            ExpositionLine line = new ExpositionLine(exposition, lineStart, lineEnd);
            if (line.isEofMarker()) {
                break;
            }
            double value = valueOf.applyAsDouble(line);
            if (Double.isFinite(value)) {
                // A series repeated on one page (which the text format forbids) counts once: its first sample.
                counted = counted == null ? new HashSet<>() : counted;
                if (counted.add(String.valueOf(line.series(metricName)))) {
                    total = clamp(total + value);
                    found = true;
                }
            }
            lineStart = lineEnd + 1;
        }
        return found ? OptionalDouble.of(total) : OptionalDouble.empty();
    }

    /** Whether {@code name} matches {@code [a-zA-Z_:][a-zA-Z0-9_:]*}. */
    static boolean isMetricName(String name) {
        if (name.isEmpty() || !ExpositionLine.isNameStart(name.charAt(0))) {
            return false;
        }
        for (int i = 1; i < name.length(); i++) {
            if (!ExpositionLine.isNameChar(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static double clamp(double sum) {
        return Math.max(-Double.MAX_VALUE, Math.min(Double.MAX_VALUE, sum));
    }
}
