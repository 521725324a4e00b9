package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Helm chart's README lists every value of {@code values.yaml} with the default {@code values.yaml} holds: each
 * row whose default cell is written as values ({@code `2`}, {@code `""`}, {@code `cpu: 500m`}) states what the file
 * says, a row that says {@code unset} names a value the file leaves out, and every value of the file has a row (its
 * own, a {@code prefix.*} row, or a row of a block or list it belongs to).
 */
class HelmValuesReferenceTest {
    static final String README = "etc/helm/grid-gateway/README.md";
    static final String VALUES = "etc/helm/grid-gateway/values.yaml";

    /** A value path as a row names it, e.g. {@code server.port} or {@code startupProbe.*}. */
    private static final Pattern NAME =
            Pattern.compile("`([a-zA-Z][a-zA-Z0-9]*(?:\\.[a-zA-Z][a-zA-Z0-9]*)*(?:\\.\\*)?)`");

    private static final Pattern TOKEN = Pattern.compile("`([^`]*)`");

    @Test
    void readme_everyStatedDefault_isTheValuesFile() {
        assertThat(wrongDefaults(RepoDocs.read(README), values()))
                .as(README + " defaults that " + VALUES + " does not hold")
                .isEmpty();
    }

    @Test
    void readme_everyValueOfTheValuesFile_hasARow() {
        assertThat(undocumented(RepoDocs.read(README), values()))
                .as(VALUES + " values with no row in " + README)
                .isEmpty();
    }

    @Test
    void wrongDefaults_findsAWrongNumberAPairAndAnUnsetValue() {
        Map<String, Object> values = load("""
                a:
                  b: 2
                  c: ""
                res:
                  requests: {cpu: "1", memory: 1Gi}
                sc:
                  seccomp: {type: RuntimeDefault}
                  drop: [ALL]
                x: 1
                y: 2
                """);
        String readme = """
                ## Values

                | value | default | meaning |
                |---|---|---|
                | `a.b` | `10` | wrong |
                | `a.c` | `""` (none) | right |
                | `res` | requests `cpu: 500m`, `memory: 1Gi` | one wrong |
                | `sc` | `seccomp: RuntimeDefault`, `drop: [ALL]` | right |
                | `x`, `y` | `1`, `2` | right |
                | `x` | unset | wrong |
                | `a.*` | anything | not compared |
                """;

        assertThat(wrongDefaults(readme, values))
                .containsExactly(
                        "a.b: README `10`, values.yaml 2", "res: README `cpu: 500m`", "x: README unset, values.yaml 1");
        assertThat(undocumented(readme, values)).isEmpty();
        assertThat(undocumented(readme.replace("| `x`, `y` |", "| `x` |"), values))
                .containsExactly("y");
    }

    /** Each row default that the values disagree with, as "path: README ..., values.yaml ...". */
    static List<String> wrongDefaults(String readme, Map<String, Object> values) {
        List<String> wrong = new ArrayList<>();
        for (List<String> row : rows(readme)) {
            List<String> names = names(row.get(0));
            String cell = row.get(1).replaceAll("\\s*\\(.*\\)$", "").strip();
            if (names.isEmpty() || names.stream().anyMatch(n -> n.endsWith(".*"))) {
                continue;
            }
            if (cell.startsWith("unset")) {
                for (String name : names) {
                    lookup(values, name).ifPresent(v -> wrong.add(name + ": README unset, values.yaml " + v));
                }
                continue;
            }
            List<String> tokens = tokens(cell);
            if (tokens.isEmpty()) {
                continue; // prose, such as "enabled, every 2 s, 30 failures"
            }
            if (tokens.stream().allMatch(t -> t.matches("[A-Za-z.]+: .+"))) {
                for (String name : names) {
                    Object block = lookup(values, name).orElse(Map.of());
                    for (String pair : tokens) {
                        if (!holds(block, pair)) {
                            wrong.add(name + ": README `" + pair + "`");
                        }
                    }
                }
                continue;
            }
            for (int i = 0; i < names.size(); i++) {
                String stated = tokens.get(tokens.size() == names.size() ? i : 0);
                String name = names.get(i);
                String actual =
                        lookup(values, name).map(HelmValuesReferenceTest::text).orElse("(absent)");
                if (!stated.equals(actual)) {
                    wrong.add(name + ": README `" + stated + "`, values.yaml " + actual);
                }
            }
        }
        return wrong;
    }

    /** Each leaf of the values (a scalar, a list, an empty mapping) that no row names, by path. */
    static List<String> undocumented(String readme, Map<String, Object> values) {
        List<String> named = new ArrayList<>();
        for (List<String> row : rows(readme)) {
            named.addAll(names(row.get(0)));
        }
        List<String> missing = new ArrayList<>();
        for (String leaf : leaves("", values)) {
            boolean covered = named.stream()
                    .anyMatch(n -> n.endsWith(".*")
                            ? leaf.startsWith(n.substring(0, n.length() - 1))
                            : leaf.equals(n) || leaf.startsWith(n + "."));
            if (!covered) {
                missing.add(leaf);
            }
        }
        return missing;
    }

    /** The rows of the tables of the README's "Values" section. */
    private static List<List<String>> rows(String readme) {
        List<List<String>> rows = new ArrayList<>();
        RepoDocs.tablesByHeading(RepoDocs.section(readme, "Values", README))
                .values()
                .forEach(rows::addAll);
        return rows;
    }

    /** The value paths a row's first cell names; relative ones ({@code .url}) and words in prose are left out. */
    private static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(cell.replaceAll("\\s*\\(.*\\)$", ""));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** The backticked values of a default cell, or none when anything but separators stands between them. */
    private static List<String> tokens(String cell) {
        List<String> tokens = new ArrayList<>();
        Matcher m = TOKEN.matcher(cell);
        while (m.find()) {
            tokens.add(m.group(1));
        }
        String rest = TOKEN.matcher(cell).replaceAll("").replaceAll("[,;]|\\b(?:requests|limits)\\b", "");
        return rest.isBlank() ? tokens : List.of();
    }

    /** Whether {@code pair} ({@code key: value}) is a value somewhere in {@code block}. */
    private static boolean holds(Object block, String pair) {
        int colon = pair.indexOf(": ");
        String key = pair.substring(0, colon);
        String value = pair.substring(colon + 2);
        if (block instanceof Map<?, ?> map) {
            Optional<Object> found = lookup(castMap(map), key);
            if (found.isPresent()) {
                Object v = found.get();
                if (text(v).equals(value)) {
                    return true;
                }
                // seccompProfile: RuntimeDefault names a one-key block by its value.
                if (v instanceof Map<?, ?> one
                        && one.size() == 1
                        && text(one.values().iterator().next()).equals(value)) {
                    return true;
                }
            }
            for (Object inner : map.values()) {
                if (holds(inner, pair)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Optional<Object> lookup(Map<String, Object> values, String path) {
        Object at = values;
        for (String part : path.split("\\.")) {
            if (!(at instanceof Map<?, ?> map) || !map.containsKey(part)) {
                return Optional.empty();
            }
            at = map.get(part);
        }
        return Optional.ofNullable(at).or(() -> Optional.of(NULL));
    }

    private static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    /** A value as the README writes it: {@code ""}, {@code []}, {@code {}}, {@code [ALL]}, {@code 1.0}. */
    private static String text(Object value) {
        if (value instanceof String s) {
            return s.isEmpty() ? "\"\"" : s;
        }
        if (value instanceof List<?> list) {
            return list.stream()
                    .map(HelmValuesReferenceTest::text)
                    .toList()
                    .toString()
                    .replace(" ", "");
        }
        if (value instanceof Map<?, ?> map && map.isEmpty()) {
            return "{}";
        }
        return String.valueOf(value);
    }

    private static List<String> leaves(String prefix, Map<?, ?> block) {
        List<String> leaves = new ArrayList<>();
        block.forEach((key, value) -> {
            String path = prefix.isEmpty() ? String.valueOf(key) : prefix + "." + key;
            if (value instanceof Map<?, ?> inner && !inner.isEmpty()) {
                leaves.addAll(leaves(path, inner));
            } else {
                leaves.add(path);
            }
        });
        return leaves;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(Map<?, ?> map) {
        return (Map<String, Object>) map;
    }

    private static Map<String, Object> values() {
        return load(RepoDocs.read(VALUES));
    }

    private static Map<String, Object> load(String yaml) {
        Map<String, Object> loaded = new Yaml().load(yaml);
        return loaded == null ? new LinkedHashMap<>() : loaded;
    }
}
