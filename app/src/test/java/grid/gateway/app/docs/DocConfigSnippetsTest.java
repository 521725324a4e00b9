package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.ConfigCheck;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * Every serving-config snippet a page shows loads: each {@code ```yaml} block of the README, docs/ and the READMEs
 * under etc/ whose top-level keys are config blocks ({@code server}, {@code gateway}, ...) is laid over
 * {@code etc/gateway-minimal.yaml} (blocks merged key by key, any other value replaced) and passes the gateway's own
 * {@code --check-config}. The example configs of etc/ themselves are {@code ExampleConfigsTest}'s. A relative path in a
 * snippet resolves as beside the examples (etc/tls, etc/keys); a file a snippet names by an absolute path outside the
 * repository (a mounted Secret) stands as a placeholder file holding one 34-character line.
 */
class DocConfigSnippetsTest {
    private static final Set<String> CONFIG_BLOCKS =
            Set.of("server", "gateway", "sites", "plugins", "development", "tracing");
    private static final String PLACEHOLDER = "placeholder-secret-0123456789abcde\n";

    @Test
    void everyConfigSnippetOfThePages_loads(@TempDir Path dir) throws IOException {
        Path root = RepoDocs.root();
        Map<String, Object> minimal = load(RepoDocs.read("etc/gateway-minimal.yaml"));
        copyTree(root.resolve("etc/tls"), dir.resolve("tls"));
        copyTree(root.resolve("etc/keys"), dir.resolve("keys"));
        List<Snippet> snippets = new ArrayList<>();
        for (Path page : RepoDocs.files(root, DocConfigSnippetsTest::isPage)) {
            snippets.addAll(
                    configSnippets(root.relativize(page).toString().replace('\\', '/'), Files.readString(page)));
        }
        assertThat(snippets)
                .as("config snippets found")
                .extracting(Snippet::where)
                .anyMatch(w -> w.startsWith("docs/tls.md:"))
                .anyMatch(w -> w.startsWith("docs/operations.md:"));

        List<String> failures = new ArrayList<>();
        for (Snippet snippet : snippets) {
            Map<String, Object> config = placeholders(merged(minimal, snippet.yaml()), dir);
            Path file = dir.resolve("snippet.yaml");
            Files.writeString(file, new Yaml().dump(config));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = ConfigCheck.run(
                    file,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            if (code != ConfigCheck.VALID) {
                failures.add(snippet.where() + ": "
                        + err.toString(StandardCharsets.UTF_8).strip());
            }
        }
        assertThat(failures).as("config snippets that --check-config refuses").isEmpty();
    }

    @Test
    void configSnippets_takeYamlBlocksOfConfigKeysOnly() {
        String page = """
                # A page
                ```yaml
                server:
                  port: 1
                ```
                ```yaml
                gridServing:
                  site: east
                ```
                ```
                server: {}
                ```
                """;

        assertThat(configSnippets("p.md", page)).extracting(Snippet::where).containsExactly("p.md:2");
    }

    @Test
    void merged_mergesBlocksAndReplacesListsAndValues() {
        Map<String, Object> base = load("gateway: {site: east, role: consumer}\nsites: [{name: east}]\n");
        Map<String, Object> over = load("gateway: {site: west}\nsites: [{name: west}]\ntracing: {sample_ratio: 0.5}\n");

        assertThat(merged(base, over))
                .isEqualTo(load("gateway: {site: west, role: consumer}\nsites: [{name: west}]\n"
                        + "tracing: {sample_ratio: 0.5}\n"));
    }

    /** A config snippet of a page: where its block starts ("file:line") and its YAML. */
    record Snippet(String where, Map<String, Object> yaml) {}

    /** The {@code ```yaml} blocks of {@code page} whose top-level keys are all config blocks. */
    static List<Snippet> configSnippets(String file, String page) {
        List<Snippet> snippets = new ArrayList<>();
        String[] lines = page.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].strip().equals("```yaml")) {
                continue;
            }
            int start = i;
            StringBuilder block = new StringBuilder();
            for (i++; i < lines.length && !lines[i].strip().startsWith("```"); i++) {
                block.append(lines[i]).append('\n');
            }
            Map<String, Object> yaml = load(block.toString());
            if (!yaml.isEmpty() && CONFIG_BLOCKS.containsAll(yaml.keySet())) {
                snippets.add(new Snippet(file + ":" + (start + 1), yaml));
            }
        }
        return snippets;
    }

    /** {@code over} laid over {@code base}: mappings merged key by key, every other value replaced. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> merged(Map<String, Object> base, Map<String, Object> over) {
        Map<String, Object> result = new LinkedHashMap<>(base);
        over.forEach((key, value) -> {
            Object under = result.get(key);
            if (under instanceof Map<?, ?> a && value instanceof Map<?, ?> b) {
                result.put(key, merged((Map<String, Object>) a, (Map<String, Object>) b));
            } else {
                result.put(key, value);
            }
        });
        return result;
    }

    /** {@code config} with every absolute path of a file that does not exist replaced by a placeholder file. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> placeholders(Map<String, Object> config, Path dir) {
        Map<String, Object> result = new LinkedHashMap<>();
        config.forEach((key, value) -> {
            if (value instanceof Map<?, ?> block) {
                result.put(key, placeholders((Map<String, Object>) block, dir));
            } else if (value instanceof List<?> list) {
                result.put(
                        key,
                        list.stream()
                                .map(item ->
                                        item instanceof Map<?, ?> m ? placeholders((Map<String, Object>) m, dir) : item)
                                .toList());
            } else if (value instanceof String path
                    && (key.endsWith("_file") || key.endsWith("_path"))
                    && path.startsWith("/")
                    && !Files.exists(Path.of(path))) {
                result.put(key, placeholder(dir, path));
            } else {
                result.put(key, value);
            }
        });
        return result;
    }

    private static String placeholder(Path dir, String path) {
        try {
            Path file = dir.resolve("placeholder" + path.replace('/', '_'));
            Files.writeString(file, PLACEHOLDER);
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }

    /** The README, the pages of docs/ and the READMEs under etc/. */
    private static boolean isPage(Path relative) {
        String name = relative.toString().replace('\\', '/');
        return name.equals("README.md")
                || (name.startsWith("docs/") && name.endsWith(".md"))
                || (name.startsWith("etc/") && relative.getFileName().toString().equals("README.md"));
    }

    private static Map<String, Object> load(String yaml) {
        Object loaded = new Yaml().load(yaml);
        if (!(loaded instanceof Map<?, ?> map)) {
            return new LinkedHashMap<>();
        }
        Map<String, Object> result = new LinkedHashMap<>();
        map.forEach((k, v) -> result.put(String.valueOf(k), v));
        return result;
    }
}
