package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test fixture for {@link AccountingPropertyTest}: a Prometheus text page (0.0.4) parsed into samples, and the sums an
 * accounting check asks of it. A sample absent from the page reads 0, as a counter not yet incremented would.
 */
final class Books {
    /** One sample line: its name, labels and value. */
    record Sample(String name, Map<String, String> labels, double value) {}

    private final List<Sample> samples = new ArrayList<>();
    private final String text;

    Books(String text) {
        this.text = text;
        for (String line : text.split("\n")) {
            String trimmed = line.strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                samples.add(sample(trimmed));
            }
        }
    }

    /** The sum of the samples named {@code name} whose labels include {@code labels} (key, value, key, value …). */
    double sum(String name, String... labels) {
        double sum = 0;
        for (Sample s : matching(name, labels)) {
            sum += s.value();
        }
        return sum;
    }

    /** The samples named {@code name} whose labels include {@code labels} (key, value, …). */
    List<Sample> matching(String name, String... labels) {
        List<Sample> found = new ArrayList<>();
        for (Sample s : samples) {
            boolean all = s.name().equals(name);
            for (int i = 0; all && i < labels.length; i += 2) {
                all = labels[i + 1].equals(s.labels().get(labels[i]));
            }
            if (all) {
                found.add(s);
            }
        }
        return found;
    }

    /**
     * Checks one histogram series of {@code name} for {@code cluster}: its buckets never fall as {@code le} grows, the
     * {@code +Inf} bucket is its {@code _count}, which is {@code count}; returns its {@code _sum}.
     */
    double histogram(String name, String cluster, long count) {
        List<Sample> buckets = matching(name + "_bucket", "cluster", cluster);
        buckets.sort((a, b) -> Double.compare(le(a), le(b)));
        double before = 0;
        for (Sample bucket : buckets) {
            assertThat(bucket.value())
                    .as("bucket %s of %s %s", bucket.labels(), name, cluster)
                    .isGreaterThanOrEqualTo(before);
            before = bucket.value();
        }
        assertThat(buckets).as("%s buckets of %s", name, cluster).isNotEmpty();
        assertThat(le(buckets.getLast())).isInfinite();
        assertThat(before).as("%s{+Inf} of %s", name, cluster).isEqualTo(count);
        assertThat(sum(name + "_count", "cluster", cluster))
                .as("%s_count of %s", name, cluster)
                .isEqualTo(count);
        return sum(name + "_sum", "cluster", cluster);
    }

    private static double le(Sample s) {
        String le = s.labels().get("le");
        return le.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le);
    }

    @Override
    public String toString() {
        return text;
    }

    private static Sample sample(String line) {
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        int rest;
        if (brace >= 0 && brace < space) {
            name = line.substring(0, brace);
            int i = brace + 1;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; line.charAt(j) != '"'; j++) {
                    if (line.charAt(j) == '\\') {
                        j++;
                    }
                    value.append(line.charAt(j));
                }
                labels.put(line.substring(i, eq).strip(), value.toString());
                i = line.charAt(j + 1) == ',' ? j + 2 : j + 1;
            }
            rest = i + 1;
        } else {
            name = line.substring(0, space);
            rest = space;
        }
        return new Sample(
                name, labels, Double.parseDouble(line.substring(rest).strip().split("\\s+")[0]));
    }
}
