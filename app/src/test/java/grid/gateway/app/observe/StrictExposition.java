package grid.gateway.app.observe;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Test fixture: a strict reader of a metrics page in the Prometheus text format 0.0.4 or OpenMetrics 1.0.0, which
 * fails on anything a scraper could read differently from what was meant: bytes that are not UTF-8, a line that is
 * not a comment, {@code HELP}, {@code TYPE} or a sample; a second {@code HELP} or {@code TYPE} of a family, or one
 * after its samples; a family whose samples are not one group; a sample name its family's type does not have; a
 * label value escaped other than as the format says (backslash, double quote, newline), a repeated label name, a
 * repeated series; a histogram whose buckets are not cumulative up to {@code +Inf} = {@code _count}; in OpenMetrics
 * also a counter family named {@code _total}, a negative or NaN counter, a trailing comma, and a page that does not
 * end with {@code # EOF}.
 */
public final class StrictExposition {
    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TEXT_TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");
    private static final Set<String> OM_TYPES =
            Set.of("counter", "gauge", "histogram", "gaugehistogram", "stateset", "info", "summary", "unknown");

    /** One sample: its name, its labels as decoded, its value. */
    public record Sample(String name, Map<String, String> labels, double value) {}

    /** A page read whole: its families' types, and its samples in order. */
    public record Page(Map<String, String> types, List<Sample> samples) {
        /** The samples named {@code name}. */
        public List<Sample> named(String name) {
            return samples.stream().filter(s -> s.name().equals(name)).toList();
        }
    }

    private final boolean openMetrics;
    private final Map<String, String> types = new LinkedHashMap<>();
    private final Set<String> helps = new HashSet<>();
    private final Set<String> done = new HashSet<>();
    private final Set<String> series = new HashSet<>();
    private final List<Sample> samples = new ArrayList<>();
    private String current = "";

    private StrictExposition(boolean openMetrics) {
        this.openMetrics = openMetrics;
    }

    /** Reads {@code page} as Prometheus text 0.0.4; throws {@link AssertionError} naming the first fault. */
    public static Page prometheusText(byte[] page) {
        return new StrictExposition(false).read(page);
    }

    /** Reads {@code page} as OpenMetrics 1.0.0; throws {@link AssertionError} naming the first fault. */
    public static Page openMetrics(byte[] page) {
        return new StrictExposition(true).read(page);
    }

    private Page read(byte[] page) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(page))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new AssertionError("the page is not UTF-8: " + e);
        }
        check(text.endsWith("\n"), "the page does not end with a newline");
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        int last = lines.length;
        if (openMetrics) {
            check(lines[lines.length - 1].equals("# EOF"), "an OpenMetrics page must end with # EOF");
            last--;
        }
        for (int i = 0; i < last; i++) {
            String line = lines[i];
            try {
                line(line);
            } catch (AssertionError e) {
                throw new AssertionError("line " + (i + 1) + " " + line + ": " + e.getMessage(), e);
            }
        }
        histograms();
        return new Page(Map.copyOf(types), List.copyOf(samples));
    }

    private void line(String line) {
        check(!line.isEmpty() || !openMetrics, "an empty line");
        if (line.isEmpty()) {
            return;
        }
        if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
            metadata(line);
        } else if (line.startsWith("#")) {
            check(!openMetrics, "a comment that is not HELP, TYPE or UNIT");
        } else {
            sample(line);
        }
    }

    private void metadata(String line) {
        boolean help = line.startsWith("# HELP ");
        String rest = line.substring(7);
        int space = rest.indexOf(' ');
        String name = space < 0 ? rest : rest.substring(0, space);
        check(METRIC_NAME.matcher(name).matches(), "not a metric name: " + name);
        startFamily(name);
        if (help) {
            check(helps.add(name), "a second HELP of " + name);
            check(space > 0, "HELP without text");
            unescape(rest.substring(space + 1), openMetrics ? "\\\"n" : "\\n", false);
            return;
        }
        check(space > 0, "TYPE without a type");
        String type = rest.substring(space + 1);
        check((openMetrics ? OM_TYPES : TEXT_TYPES).contains(type), "unknown type " + type);
        check(!types.containsKey(name), "a second TYPE of " + name);
        check(samples.stream().noneMatch(s -> family(s.name()).equals(name)), "TYPE after samples of " + name);
        if (openMetrics && type.equals("counter")) {
            check(!name.endsWith("_total"), "an OpenMetrics counter family named _total: " + name);
        }
        types.put(name, type);
    }

    /** The metadata or a sample of {@code family} begins or continues its group. */
    private void startFamily(String family) {
        if (family.equals(current)) {
            return;
        }
        check(!done.contains(family), "the lines of " + family + " are not one group");
        if (!current.isEmpty()) {
            done.add(current);
        }
        current = family;
    }

    private void sample(String line) {
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        check(space > 0, "a sample without a value");
        int nameEnd = brace >= 0 && brace < space ? brace : space;
        String name = line.substring(0, nameEnd);
        check(METRIC_NAME.matcher(name).matches(), "not a metric name: " + name);
        Map<String, String> labels = new TreeMap<>();
        int at = nameEnd;
        if (brace == nameEnd) {
            at = labels(line, brace + 1, labels);
        }
        check(at < line.length() && line.charAt(at) == ' ', "no single space before the value");
        String[] tail = line.substring(at + 1).split(" ", -1);
        check(tail.length <= 2 && !tail[0].isEmpty(), "not a value (and timestamp): " + line.substring(at));
        double value = value(tail[0]);
        String family = family(name);
        startFamily(family);
        check(series.add(name + labels), "a repeated series " + name + labels);
        String type = types.getOrDefault(family, "untyped");
        if (openMetrics && type.equals("counter") && name.endsWith("_total")) {
            check(!Double.isNaN(value) && value >= 0, "a counter must be a number >= 0: " + value);
        }
        samples.add(new Sample(name, Map.copyOf(labels), value));
    }

    /** The family {@code name} is a sample of, by the families whose TYPE the page gave. */
    private String family(String name) {
        for (String suffix : List.of("_total", "_created", "_bucket", "_count", "_sum")) {
            if (name.endsWith(suffix)) {
                String base = name.substring(0, name.length() - suffix.length());
                String type = types.get(base);
                if (type != null && suffixes(type).contains(suffix)) {
                    return base;
                }
            }
        }
        String type = types.get(name);
        if (type != null) {
            check(suffixes(type).contains(""), "a " + type + " has no sample named as its family: " + name);
        }
        return name;
    }

    private Set<String> suffixes(String type) {
        return switch (type) {
            case "counter" -> openMetrics ? Set.of("_total", "_created") : Set.of("");
            case "histogram" -> Set.of("_bucket", "_count", "_sum", "_created");
            case "summary" -> Set.of("", "_count", "_sum", "_created");
            default -> Set.of("");
        };
    }

    /** Reads {@code k="v",...} from {@code from} to its closing brace; the index after it. */
    private int labels(String line, int from, Map<String, String> labels) {
        int i = from;
        while (true) {
            check(i < line.length(), "labels without a closing brace");
            if (line.charAt(i) == '}') {
                check(!openMetrics || i == from || line.charAt(i - 1) != ',', "a trailing comma in the labels");
                return i + 1;
            }
            int eq = line.indexOf('=', i);
            check(eq > i, "a label without =");
            String name = line.substring(i, eq);
            check(LABEL_NAME.matcher(name).matches() && !name.startsWith("__"), "not a label name: " + name);
            check(eq + 1 < line.length() && line.charAt(eq + 1) == '"', "a label value without a quote");
            StringBuilder raw = new StringBuilder();
            int j = eq + 2;
            while (true) {
                check(j < line.length(), "a label value without its closing quote");
                char c = line.charAt(j);
                if (c == '"') {
                    break;
                }
                raw.append(c);
                if (c == '\\') {
                    check(j + 1 < line.length(), "a backslash at the end of the line");
                    raw.append(line.charAt(++j));
                }
                j++;
            }
            check(labels.put(name, unescape(raw.toString(), "\\\"n", true)) == null, "a repeated label " + name);
            i = j + 1;
            check(i < line.length(), "labels without a closing brace");
            if (line.charAt(i) == ',') {
                i++;
            } else {
                check(line.charAt(i) == '}', "labels not separated by a comma");
            }
        }
    }

    /** {@code raw} with its escapes (a backslash and one of {@code allowed}) decoded; any other escape fails. */
    private static String unescape(String raw, String allowed, boolean quoted) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            check(!quoted || c != '"', "an unescaped double quote");
            if (c != '\\') {
                out.append(c);
                continue;
            }
            check(i + 1 < raw.length(), "a backslash at the end");
            char next = raw.charAt(++i);
            check(allowed.indexOf(next) >= 0, "an escape the format does not have: \\" + next);
            out.append(next == 'n' ? '\n' : next);
        }
        return out.toString();
    }

    private static double value(String text) {
        return switch (text) {
            case "NaN" -> Double.NaN;
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> {
                check(text.matches("[-+]?[0-9]*\\.?[0-9]+([eE][-+]?[0-9]+)?"), "not a value: " + text);
                yield Double.parseDouble(text);
            }
        };
    }

    /** Each histogram's series: buckets cumulative, ending at {@code +Inf}, which equals {@code _count}. */
    private void histograms() {
        for (Map.Entry<String, String> family : types.entrySet()) {
            if (!family.getValue().equals("histogram")) {
                continue;
            }
            String name = family.getKey();
            Map<Map<String, String>, TreeMap<Double, Double>> buckets = new HashMap<>();
            for (Sample sample : samples) {
                if (sample.name().equals(name + "_bucket")) {
                    Map<String, String> rest = new TreeMap<>(sample.labels());
                    String le = rest.remove("le");
                    check(le != null, name + "_bucket without le");
                    buckets.computeIfAbsent(rest, k -> new TreeMap<>()).put(value(le), sample.value());
                }
            }
            for (Map.Entry<Map<String, String>, TreeMap<Double, Double>> one : buckets.entrySet()) {
                double previous = 0;
                for (double count : one.getValue().values()) {
                    check(count >= previous, name + one.getKey() + " buckets are not cumulative");
                    previous = count;
                }
                check(one.getValue().lastKey() == Double.POSITIVE_INFINITY, name + one.getKey() + " has no +Inf");
                double total = samples.stream()
                        .filter(s ->
                                s.name().equals(name + "_count") && s.labels().equals(one.getKey()))
                        .mapToDouble(Sample::value)
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(name + one.getKey() + " has no _count"));
                check(total == previous, name + one.getKey() + " +Inf is not _count");
            }
        }
    }

    private static void check(boolean ok, String fault) {
        if (!ok) {
            throw new AssertionError(fault);
        }
    }
}
