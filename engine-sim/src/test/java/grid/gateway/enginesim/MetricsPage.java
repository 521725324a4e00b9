package grid.gateway.enginesim;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test fixture: the structure of a Prometheus text page, for comparing two pages whatever their numbers: each family's
 * {@code # TYPE} and {@code # HELP}, and, for each sample name, the label names its series carry.
 */
final class MetricsPage {
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("(\\w+)=\"(?:[^\"\\\\]|\\\\.)*\"");

    private final Map<String, String> types = new TreeMap<>();
    private final Map<String, String> helps = new TreeMap<>();
    private final Map<String, Set<Set<String>>> labels = new TreeMap<>();

    /** The families of {@code page} whose names start with {@code prefix}. */
    MetricsPage(String page, String prefix) {
        for (String line : page.split("\n")) {
            if (line.startsWith("# TYPE " + prefix)) {
                String[] parts = line.substring("# TYPE ".length()).split(" ");
                types.put(parts[0], parts[1]);
            } else if (line.startsWith("# HELP " + prefix)) {
                String rest = line.substring("# HELP ".length());
                int space = rest.indexOf(' ');
                helps.put(rest.substring(0, space), rest.substring(space + 1));
            } else if (line.startsWith(prefix)) {
                Matcher sample = SAMPLE.matcher(line);
                if (!sample.matches()) {
                    throw new AssertionError("not a sample line: " + line);
                }
                Set<String> names = new TreeSet<>();
                Matcher label = LABEL.matcher(sample.group(3) == null ? "" : sample.group(3));
                while (label.find()) {
                    names.add(label.group(1));
                }
                labels.computeIfAbsent(
                                sample.group(1), k -> new TreeSet<>(java.util.Comparator.comparing(Object::toString)))
                        .add(names);
            }
        }
    }

    /** Family name to its type. */
    Map<String, String> types() {
        return types;
    }

    /** Family name to its help text. */
    Map<String, String> helps() {
        return helps;
    }

    /** Sample name to the label-name sets of its series, as text. */
    Map<String, String> labelNames() {
        Map<String, String> text = new TreeMap<>();
        labels.forEach((name, sets) -> text.put(name, sets.toString()));
        return text;
    }
}
