package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.docs.RepoDocs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The configuration reference tables (docs/configuration.md) and the effective config that {@code --check-config} prints agree:
 * every key printed for any example config in {@code etc/} has a row, every row is a key some example prints, and
 * every default in the tables is what the gateway fills in for the smallest config.
 */
class ConfigReferenceTest {
    /** The default cell of a key that has to be written. */
    private static final String REQUIRED = "—";
    /** The default cell of an optional key with no value; {@code --check-config} leaves such a key out. */
    private static final String NONE = "none";

    @Test
    void readme_everyEffectiveKeyOfEveryExample_hasARow() throws IOException {
        Map<String, List<String>> rows = readmeRows();

        for (Path example : examples()) {
            for (String key : effective(example).keySet()) {
                assertThat(rows)
                        .as("docs/configuration.md row for " + key + " (printed for " + example.getFileName() + ")")
                        .containsKey(key);
            }
        }
    }

    @Test
    void readme_everyRow_isAKeySomeExamplePrints() throws IOException {
        Set<String> printed = new TreeSet<>();
        for (Path example : examples()) {
            printed.addAll(effective(example).keySet());
        }

        assertThat(readmeRows().keySet())
                .as("docs/configuration.md rows that no example in etc/ prints with --check-config")
                .isSubsetOf(printed);
    }

    @Test
    void readme_defaults_matchWhatTheSmallestConfigIsFilledInWith() {
        Map<String, List<Object>> minimal = effective(RepoDocs.root().resolve("etc/gateway-minimal.yaml"));

        readmeRows().forEach((key, row) -> {
            String cell = row.get(2);
            if (cell.startsWith(NONE)) {
                assertThat(minimal)
                        .as(key + " has no default, so it is not printed")
                        .doesNotContainKey(key);
                return;
            }
            assertThat(minimal).as(key + " printed").containsKey(key);
            if (cell.equals(REQUIRED)) {
                return;
            }
            List<String> expected = new ArrayList<>();
            for (Object url : minimal.getOrDefault(parent(key) + ".url", List.of(""))) {
                expected.add(RepoDocs.unquote(cell).replace("<url>", String.valueOf(url)));
            }
            List<String> actual =
                    minimal.get(key).stream().map(String::valueOf).distinct().toList();
            assertThat(actual)
                    .as("default of " + key)
                    .containsExactlyElementsOf(expected.stream().distinct().toList());
        });
    }

    /** Rows of the configuration reference by full key path, e.g. {@code gateway.upstream.idle_timeout_ms}. */
    static Map<String, List<String>> readmeRows() {
        Map<String, List<String>> rows = new LinkedHashMap<>();
        RepoDocs.tablesByHeading(RepoDocs.docSection("docs/configuration.md", "Configuration reference"))
                .forEach((heading, table) -> {
                    if (heading.isEmpty()) {
                        return; // not a block's table (the list of example files)
                    }
                    for (List<String> row : table) {
                        String key = heading + "." + RepoDocs.unquote(row.get(0));
                        assertThat(rows.put(key, row)).as("one row for " + key).isNull();
                    }
                });
        assertThat(rows).as("configuration reference rows").hasSizeGreaterThan(20);
        return rows;
    }

    /** Every example config: each top-level {@code etc/*.yaml}. */
    static List<Path> examples() throws IOException {
        try (Stream<Path> files = Files.list(RepoDocs.root().resolve("etc"))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".yaml"))
                    .sorted()
                    .toList();
        }
    }

    /**
     * The effective config {@code --check-config} prints for {@code file}, flattened: key path ({@code [*]} for a
     * list item) to the values at that path, in order. A list of blocks is a key too ({@code sites[*].clusters}),
     * except the top-level {@code sites}, whose items have their own table; plain blocks are not.
     */
    static Map<String, List<Object>> effective(Path file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = ConfigCheck.run(
                file,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        assertThat(code).as(file + " is valid").isZero();
        Map<String, List<Object>> keys = new LinkedHashMap<>();
        Map<?, ?> root = new Yaml().load(out.toString(StandardCharsets.UTF_8));
        flatten("", root, keys);
        return keys;
    }

    private static void flatten(String prefix, Map<?, ?> block, Map<String, List<Object>> keys) {
        block.forEach((name, value) -> {
            String path = prefix.isEmpty() ? String.valueOf(name) : prefix + "." + name;
            if (value instanceof Map<?, ?> inner) {
                flatten(path, inner, keys);
            } else if (value instanceof List<?> list && !list.isEmpty() && list.getFirst() instanceof Map<?, ?>) {
                if (!prefix.isEmpty()) {
                    keys.computeIfAbsent(path, k -> new ArrayList<>()).add(list.size());
                }
                list.forEach(item -> flatten(path + "[*]", (Map<?, ?>) item, keys));
            } else {
                keys.computeIfAbsent(path, k -> new ArrayList<>()).add(value);
            }
        });
    }

    private static String parent(String key) {
        return key.substring(0, key.lastIndexOf('.'));
    }
}
