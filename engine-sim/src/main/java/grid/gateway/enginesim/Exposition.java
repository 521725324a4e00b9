package grid.gateway.enginesim;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes one {@code /metrics} page the way vLLM's server writes it (Python's prometheus_client, text format 0.0.4;
 * {@code testdata/vllm/metrics_after_probe.txt}): every series labelled {@code engine="0"} and
 * {@code model_name}, labels in name order ({@code engine}, {@code finished_reason}, {@code le},
 * {@code model_name}, {@code reason}, {@code source}); a counter's sample and {@code # TYPE} line both end in
 * {@code _total}; every counter and histogram followed by a {@code _created} gauge holding the engine's start
 * time; numbers as {@link PromFloat} writes them.
 *
 * <p>Not thread-safe; one per scrape.
 */
final class Exposition {
    private final StringBuilder out = new StringBuilder(24_576);
    private final String model;
    private final String created;

    /** A page for the engine serving {@code model}, started at {@code createdSeconds} since the epoch. */
    Exposition(String model, double createdSeconds) {
        this.model = escape(requireNonNull(model, "model"));
        this.created = PromFloat.format(createdSeconds);
    }

    /** A gauge with one series. */
    void gauge(String name, String help, double value) {
        family(name, help, "gauge");
        sample(name, labels(Map.of()), PromFloat.format(value));
    }

    /** A gauge with one series per value of {@code label}, in the map's order. */
    void gauge(String name, String help, String label, Map<String, Double> byValue) {
        family(name, help, "gauge");
        byValue.forEach((value, number) -> sample(name, labels(Map.of(label, value)), PromFloat.format(number)));
    }

    /** A counter {@code <base>_total} with one series, and its {@code <base>_created}. */
    void counter(String base, String help, double value) {
        family(base + "_total", help, "counter");
        sample(base + "_total", labels(Map.of()), PromFloat.format(value));
        created(base + "_created", help, List.of(labels(Map.of())));
    }

    /** A counter {@code <base>_total} with one series per value of {@code label}, and its {@code <base>_created}. */
    void counter(String base, String help, String label, Map<String, Double> byValue) {
        family(base + "_total", help, "counter");
        byValue.forEach(
                (value, number) -> sample(base + "_total", labels(Map.of(label, value)), PromFloat.format(number)));
        created(
                base + "_created",
                help,
                byValue.keySet().stream().map(v -> labels(Map.of(label, v))).toList());
    }

    /**
     * The counts of one histogram at a scrape.
     *
     * @param bounds the buckets' upper bounds, without {@code +Inf}
     * @param buckets the cumulative count of each bucket
     * @param count the observations
     * @param sum their sum
     */
    record Counts(List<Double> bounds, List<Long> buckets, long count, double sum) {
        Counts {
            bounds = List.copyOf(bounds);
            buckets = List.copyOf(buckets);
        }
    }

    /** A histogram: cumulative {@code _bucket} series ending with {@code +Inf}, {@code _count}, {@code _sum}. */
    void histogram(String name, String help, Counts counts) {
        family(name, help, "histogram");
        for (int i = 0; i < counts.bounds().size(); i++) {
            sample(
                    name + "_bucket",
                    labels(Map.of("le", PromFloat.format(counts.bounds().get(i)))),
                    number(counts.buckets().get(i)));
        }
        sample(name + "_bucket", labels(Map.of("le", "+Inf")), number(counts.count()));
        sample(name + "_count", labels(Map.of()), number(counts.count()));
        sample(name + "_sum", labels(Map.of()), PromFloat.format(counts.sum()));
        created(name + "_created", help, List.of(labels(Map.of())));
    }

    /** An info gauge of 1 whose labels carry the values, as {@code vllm:cache_config_info} (no model label). */
    void info(String name, String help, SortedMap<String, String> labels) {
        family(name, help, "gauge");
        StringBuilder text = new StringBuilder();
        labels.forEach((key, value) -> text.append(text.isEmpty() ? "" : ",")
                .append(key)
                .append("=\"")
                .append(escape(value))
                .append('"'));
        sample(name, text.toString(), "1.0");
    }

    String text() {
        return out.toString();
    }

    private void created(String name, String help, List<String> labelSets) {
        family(name, help, "gauge");
        labelSets.forEach(labels -> sample(name, labels, created));
    }

    private void family(String name, String help, String type) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void sample(String name, String labels, String value) {
        out.append(name).append('{').append(labels).append("} ").append(value).append('\n');
    }

    /** {@code engine}, {@code model_name} and {@code extra}, in name order, as prometheus_client writes them. */
    private String labels(Map<String, String> extra) {
        SortedMap<String, String> all = new TreeMap<>(extra);
        all.put("engine", "0");
        all.put("model_name", model);
        StringBuilder text = new StringBuilder();
        all.forEach((key, value) -> text.append(text.isEmpty() ? "" : ",")
                .append(key)
                .append("=\"")
                .append(key.equals("model_name") ? value : escape(value))
                .append('"'));
        return text.toString();
    }

    private static String number(long count) {
        return PromFloat.format((double) count);
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
