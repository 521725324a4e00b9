package grid.gateway.app.observe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Test fixture: the samples of a Prometheus text exposition (0.0.4), parsed well enough to assert on names, labels
 * and values. Helidon's {@code scope} label is kept but never needs to be named in a query.
 */
record Scrape(String text, List<Sample> samples) {

    /** One sample line. */
    record Sample(String name, Map<String, String> labels, double value) {}

    static Scrape parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            samples.add(sample(trimmed));
        }
        return new Scrape(text, List.copyOf(samples));
    }

    /** The value of the one sample named {@code name} whose labels include {@code labels}. */
    Optional<Double> value(String name, Map<String, String> labels) {
        List<Sample> found = matching(name, labels);
        if (found.size() > 1) {
            throw new AssertionError(found.size() + " samples match " + name + labels + ":\n" + text);
        }
        return found.stream().map(Sample::value).findFirst();
    }

    /** The value of the one sample named {@code name} with the label {@code key=value}. */
    Optional<Double> value(String name, String key, String value) {
        return value(name, Map.of(key, value));
    }

    /** Samples named {@code name} whose labels include {@code labels}. */
    List<Sample> matching(String name, Map<String, String> labels) {
        return samples.stream()
                .filter(s -> s.name().equals(name))
                .filter(s -> s.labels().entrySet().containsAll(labels.entrySet()))
                .toList();
    }

    /** Samples with the label {@code key=value}, whatever their name. */
    List<Sample> withLabel(String key, String value) {
        return samples.stream().filter(s -> value.equals(s.labels().get(key))).toList();
    }

    private static Sample sample(String line) {
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        Map<String, String> labels = new LinkedHashMap<>();
        String name;
        int rest;
        if (brace >= 0 && (space < 0 || brace < space)) {
            name = line.substring(0, brace);
            rest = labels(line, brace + 1, labels);
        } else {
            name = line.substring(0, space);
            rest = space;
        }
        String[] tail = line.substring(rest).strip().split("\\s+");
        return new Sample(name, Map.copyOf(labels), Double.parseDouble(tail[0]));
    }

    /** Reads {@code k="v",...} up to the closing brace; returns the index after it. */
    private static int labels(String line, int from, Map<String, String> labels) {
        int i = from;
        while (line.charAt(i) != '}') {
            int eq = line.indexOf('=', i);
            String key = line.substring(i, eq).strip();
            StringBuilder value = new StringBuilder();
            int j = eq + 2;
            while (line.charAt(j) != '"') {
                char c = line.charAt(j);
                if (c == '\\') {
                    j++;
                    c = line.charAt(j) == 'n' ? '\n' : line.charAt(j);
                }
                value.append(c);
                j++;
            }
            labels.put(key, value.toString());
            i = j + 1;
            if (line.charAt(i) == ',') {
                i++;
            }
        }
        return i + 1;
    }
}
