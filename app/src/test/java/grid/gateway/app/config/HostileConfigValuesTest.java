package grid.gateway.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * Generated hostile variants of every example config under {@code etc/}: each key in turn given a value of every wrong
 * kind (a string, a number out of range, a float, NaN, a boolean, a list, a mapping, null, a number with a unit or in
 * hex), an unknown key added to every block, and every key written twice. Each variant is either a valid config or
 * refused with a {@link ConfigException} whose problems name the key (never another exception, which at start is a
 * stack trace), each problem one line of bounded length without control characters (a log line each, and the
 * watcher's refusal is one log line of them).
 */
class HostileConfigValuesTest {
    /** Values of every kind a key may wrongly hold. */
    private static final List<@Nullable Object> WRONG = Arrays.asList(
            "text",
            "",
            "10ms",
            "0x10",
            "1e400",
            0,
            -1,
            2_147_483_648L,
            new BigInteger("99999999999999999999999"),
            1.5,
            Double.NaN,
            Double.NEGATIVE_INFINITY,
            true,
            List.of(),
            List.of(1),
            Map.of(),
            Map.of("x", 1),
            null);

    private static final String UNKNOWN = "zz_unknown";
    private static final Pattern KEY_LINE = Pattern.compile("(- )?[a-z_]+:(\\s|$)");

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void everyKeyGivenEveryWrongKindOfValue_loadedOrRefusedNamingTheKey(Path example) throws IOException {
        Object tree = new Yaml().load(Files.readString(example));
        List<String> failures = new ArrayList<>();

        variants(tree, tree, "", (path, wrong, text) -> check(example, path, wrong, text, failures));

        assertThat(failures).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void everyKeyWrittenTwice_refusedNamingTheKey(Path example) throws IOException {
        List<String> lines = Files.readAllLines(example);
        List<String> failures = new ArrayList<>();

        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String key = line.strip();
            if (!KEY_LINE.matcher(key).lookingAt()) {
                continue;
            }
            List<String> doubled = new ArrayList<>(lines);
            // The first key of a list item is written again as the item's second.
            doubled.add(i + 1, line.replaceFirst("- ", "  "));
            key = key.startsWith("- ") ? key.substring(2) : key;
            String name = key.substring(0, key.indexOf(':'));
            List<String> problems = refusal(example, String.join("\n", doubled) + "\n", failures, "line " + (i + 1));
            if (problems != null && problems.stream().noneMatch(p -> p.contains("duplicate key " + name))) {
                failures.add("line " + (i + 1) + " twice: " + problems);
            }
        }

        assertThat(failures).isEmpty();
    }

    /** The example configs, each with the files it names beside it. */
    static Stream<Path> examples() throws IOException {
        return ExampleConfigsTest.sampleConfigs();
    }

    private static void check(Path example, String path, @Nullable Object wrong, String text, List<String> failures) {
        List<String> problems = refusal(example, text, failures, path);
        if (problems == null) {
            return;
        }
        // A problem may name the key by its name alone (a rule between two keys); a key turned true may turn on
        // another key of its block, which is then named; a site's name may be any label, and then the local site
        // names a site no longer listed.
        String block = path.contains(".") ? path.substring(0, path.lastIndexOf('.') + 1) : "";
        String key = path.substring(block.length());
        boolean named = problems.stream()
                .anyMatch(p -> p.contains(path)
                        || p.contains(" " + key + " ")
                        || (Boolean.TRUE.equals(wrong) && !block.isEmpty() && p.startsWith(block))
                        || p.startsWith("gateway.site: "));
        if (!named) {
            failures.add(path + ": refused without naming it: " + problems);
        }
    }

    /** The problems {@code text} is refused with; null when it loads or fails otherwise (a failure). */
    private static @Nullable List<String> refusal(Path example, String text, List<String> failures, String what) {
        try {
            ConfigLoader.load(text.getBytes(StandardCharsets.UTF_8), example, ConfigFiles::readKey);
            return null;
        } catch (ConfigException e) {
            for (String problem : e.problems()) {
                if (problem.length() > Problems.MAX_LINE_CHARS
                        || problem.codePoints().anyMatch(Character::isISOControl)) {
                    failures.add(what + ": unbounded or multi-line problem: " + problem);
                }
            }
            return e.problems();
        } catch (RuntimeException | Error e) {
            failures.add(what + ": " + e);
            return null;
        }
    }

    /** Hands {@code sink} each variant of {@code root}: the key path changed, its value, and the text. */
    @SuppressWarnings("unchecked")
    private static void variants(Object root, @Nullable Object node, String path, Sink sink) {
        if (node instanceof Map<?, ?> map) {
            Map<Object, @Nullable Object> entries = (Map<Object, @Nullable Object>) map;
            entries.put(UNKNOWN, 1);
            sink.accept(join(path, UNKNOWN), 1, dump(root));
            entries.remove(UNKNOWN);
            for (Object key : new ArrayList<>(entries.keySet())) {
                Object kept = entries.get(key);
                for (Object wrong : WRONG) {
                    entries.put(key, wrong);
                    sink.accept(join(path, String.valueOf(key)), wrong, dump(root));
                }
                entries.put(key, kept);
                variants(root, kept, join(path, String.valueOf(key)), sink);
            }
        } else if (node instanceof List<?> list) {
            List<@Nullable Object> items = (List<@Nullable Object>) list;
            for (int i = 0; i < items.size(); i++) {
                Object kept = items.get(i);
                for (Object wrong : WRONG) {
                    items.set(i, wrong);
                    sink.accept(path + "[" + i + "]", wrong, dump(root));
                }
                items.set(i, kept);
                variants(root, kept, path + "[" + i + "]", sink);
            }
        }
    }

    private static String join(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static String dump(Object root) {
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        // Plain SnakeYAML writes an anchor for a value it meets twice; each variant is a tree.
        return new Yaml(options).dump(copy(root));
    }

    private static @Nullable Object copy(@Nullable Object node) {
        if (node instanceof Map<?, ?> map) {
            Map<Object, @Nullable Object> copied = new LinkedHashMap<>();
            map.forEach((k, v) -> copied.put(k, copy(v)));
            return copied;
        }
        if (node instanceof List<?> list) {
            List<@Nullable Object> copied = new ArrayList<>();
            list.forEach(v -> copied.add(copy(v)));
            return copied;
        }
        return node;
    }

    @FunctionalInterface
    private interface Sink {
        void accept(String path, @Nullable Object wrong, String text);
    }
}
