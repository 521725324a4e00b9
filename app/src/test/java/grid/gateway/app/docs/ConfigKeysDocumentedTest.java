package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every key the config parser accepts (the names each block lists as known, {@code block.only(...)} in
 * {@code app/.../config/}) has a row or a block heading in the configuration reference, and every row names a key
 * the parser accepts. {@code ConfigReferenceTest} compares the rows with what the example configs print; this one
 * also catches a key that no example writes.
 */
class ConfigKeysDocumentedTest {
    static final String REFERENCE = "docs/configuration.md";
    static final String PARSER = "app/src/main/java/grid/gateway/app/config";

    private static final Pattern ONLY = Pattern.compile("\\.only\\(([^;]*?)\\);", Pattern.DOTALL);
    private static final Pattern STRING = Pattern.compile("\"([a-z_]+)\"");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_]+)` \\|", Pattern.MULTILINE);
    private static final Pattern HEADING = Pattern.compile("^\\*\\*`([a-z_.\\[\\]*]+)`\\*\\*", Pattern.MULTILINE);

    @Test
    void everyKeyTheParserAccepts_isInTheReference_andNoOther() throws IOException {
        Set<String> accepted = accepted(parserSources());
        assertThat(accepted).as("keys read from " + PARSER).contains("port", "metrics_dns", "confirm_wait_ms");
        String reference = RepoDocs.docSection(REFERENCE, "Configuration reference");

        assertThat(accepted)
                .as("keys the parser accepts that " + REFERENCE + " does not name")
                .isSubsetOf(named(reference));
        assertThat(rows(reference))
                .as("rows of " + REFERENCE + " that the parser does not accept")
                .isSubsetOf(accepted);
    }

    @Test
    void acceptedAndNamed_readCallsRowsAndHeadings() {
        String source = """
                block.only("enabled", "token_file");
                server.only(
                        "port",
                        // a comment
                        "tls");
                """;
        String reference = """
                **`server.tls`** (optional)

                | key | type | default | meaning |
                |---|---|---|---|
                | `enabled` | boolean | `false` | on |
                """;

        assertThat(accepted(source)).containsExactlyInAnyOrder("enabled", "token_file", "port", "tls");
        assertThat(named(reference)).containsExactlyInAnyOrder("server", "tls", "enabled");
        assertThat(rows(reference)).containsExactly("enabled");
    }

    static Set<String> accepted(String source) {
        Set<String> keys = new TreeSet<>();
        Matcher call = ONLY.matcher(source);
        while (call.find()) {
            Matcher s = STRING.matcher(call.group(1));
            while (s.find()) {
                keys.add(s.group(1));
            }
        }
        return keys;
    }

    /** The key names of the reference's rows and every name in its block headings' paths. */
    static Set<String> named(String reference) {
        Set<String> names = rows(reference);
        Matcher h = HEADING.matcher(reference);
        while (h.find()) {
            for (String part : h.group(1).replace("[*]", "").split("\\.")) {
                names.add(part);
            }
        }
        return names;
    }

    static Set<String> rows(String reference) {
        Set<String> keys = new TreeSet<>();
        Matcher r = ROW.matcher(reference);
        while (r.find()) {
            keys.add(r.group(1));
        }
        return keys;
    }

    private static String parserSources() throws IOException {
        StringBuilder all = new StringBuilder();
        List<Path> sources = RepoDocs.files(
                RepoDocs.root(), p -> p.startsWith(PARSER) && p.toString().endsWith(".java"));
        assertThat(sources).as("sources under " + PARSER).isNotEmpty();
        for (Path source : sources) {
            all.append(Files.readString(source)).append('\n');
        }
        return all.toString();
    }
}
