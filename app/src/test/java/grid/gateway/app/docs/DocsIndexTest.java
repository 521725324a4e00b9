package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README stays the short entry page and links the map of the docs; the map, docs/README.md, links every page of
 * docs/; and every relative link of every Markdown file of the repository reaches an existing file and, when it
 * names one, an existing heading there (anchors as the code host makes them, a repeated heading's with {@code -1},
 * {@code -2}, ...).
 */
class DocsIndexTest {
    private static final int README_MAX_LINES = 250;
    private static final String MAP = "docs/README.md";
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void readme_isShort_andLinksTheMapOfTheDocs() throws IOException {
        Path root = RepoDocs.root();
        assertThat(RepoDocs.read("README.md").lines().count())
                .as("README.md lines")
                .isLessThan(README_MAX_LINES);
        assertThat(linkedFiles(root, root.resolve("README.md")))
                .as("README links " + MAP)
                .contains(MAP);
    }

    @Test
    void theMap_linksEveryPageOfDocs() throws IOException {
        assertThat(unlisted(RepoDocs.root(), MAP))
                .as("pages of docs/ missing from " + MAP)
                .isEmpty();
    }

    @Test
    void unlisted_namesAPageTheMapLeavesOut(@TempDir Path dir) throws IOException {
        Files.createDirectories(dir.resolve("docs"));
        Files.writeString(dir.resolve("docs/README.md"), "# Map\n\n* [a](a.md): a page\n");
        Files.writeString(dir.resolve("docs/a.md"), "# A\n");
        assertThat(unlisted(dir, MAP)).isEmpty();

        Files.writeString(dir.resolve("docs/b.md"), "# B\n");
        assertThat(unlisted(dir, MAP)).containsExactly("docs/b.md");
    }

    @Test
    void everyRelativeLink_reachesAFileAndHeadingThatExist() throws IOException {
        Path root = RepoDocs.root();
        List<Path> markdown = RepoDocs.files(root, p -> p.toString().endsWith(".md"));
        assertThat(markdown).as("Markdown files found").contains(root.resolve(MAP), root.resolve("BENCHMARKS.md"));
        assertThat(brokenLinks(root, markdown)).as("broken links").isEmpty();
    }

    @Test
    void brokenLinks_reportsAMissingFileAndAMissingHeading(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.md"), """
                # A page
                ## Twice
                ## Twice
                [fine](b.md) [fine](#a-page) [fine](b.md#b-1) [fine](#twice-1) [leaves](https://example.org/x.md)
                [no file](c.md) [no heading](b.md#nowhere) [no third](#twice-2)
                ```
                [in a fence](d.md)
                ```
                """);
        Files.writeString(dir.resolve("b.md"), "# B 1\n");

        assertThat(brokenLinks(dir, List.of(dir.resolve("a.md"))))
                .containsExactly(
                        "a.md: (c.md) no such file",
                        "a.md: (b.md#nowhere) no such heading",
                        "a.md: (#twice-2) no such heading");
    }

    @Test
    void anchor_followsTheHostsRule() {
        assertThat(anchor("Lifecycle: restart, reload, shutdown")).isEqualTo("lifecycle-restart-reload-shutdown");
        assertThat(anchor("Evidence (`bin/routing-sim`)")).isEqualTo("evidence-binrouting-sim");
        assertThat(anchor("4. The keyer")).isEqualTo("4-the-keyer");
    }

    /** The pages of {@code root}/docs that the map {@code map} does not link, relative to {@code root}. */
    static List<String> unlisted(Path root, String map) throws IOException {
        Set<String> linked = linkedFiles(root, root.resolve(map));
        List<String> missing = new ArrayList<>();
        for (Path page : markdownFiles(root.resolve("docs"))) {
            String name = relative(root, page);
            if (!name.equals(map) && !linked.contains(name)) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** Each relative link of {@code files} whose file or heading does not exist, as "file: (link) why". */
    static List<String> brokenLinks(Path root, List<Path> files) throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            for (Link link : links(file)) {
                String where = relative(root, file) + ": (" + link.text() + ")";
                if (!Files.exists(link.target())) {
                    broken.add(where + " no such file");
                } else if (link.anchor() != null && !anchors(link.target()).contains(link.anchor())) {
                    broken.add(where + " no such heading");
                }
            }
        }
        return broken;
    }

    private static Set<String> linkedFiles(Path root, Path file) throws IOException {
        Set<String> linked = new HashSet<>();
        for (Link link : links(file)) {
            linked.add(relative(root, link.target()));
        }
        return linked;
    }

    private static String relative(Path root, Path file) {
        return root.relativize(file).toString().replace('\\', '/');
    }

    /** A relative link of {@code file}: the text between the parentheses, its target file, its anchor or null. */
    private record Link(String text, Path target, String anchor) {}

    private static List<Link> links(Path file) throws IOException {
        List<Link> links = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            Matcher m = LINK.matcher(line);
            while (!fenced && m.find()) {
                String text = m.group(1);
                if (text.matches("[a-z]+:.*")) {
                    continue; // http:, https:, mailto: and the like leave the repository
                }
                int hash = text.indexOf('#');
                String path = hash < 0 ? text : text.substring(0, hash);
                Path target =
                        path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                links.add(new Link(text, target, hash < 0 ? null : text.substring(hash + 1)));
            }
        }
        return links;
    }

    /** The anchors of a Markdown file's headings; a repeated heading's anchor gets -1, -2, ... as on the host. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!markdown.toString().endsWith(".md")) {
            return anchors;
        }
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            int level = RepoDocs.headingLevel(line);
            if (!fenced && level > 0) {
                String anchor = anchor(line.substring(level).strip());
                int before = seen.merge(anchor, 1, Integer::sum) - 1;
                anchors.add(before == 0 ? anchor : anchor + "-" + before);
            }
        }
        return anchors;
    }

    /** A heading's anchor as the code host makes it: lower case, punctuation dropped, spaces turned into hyphens. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }

    private static List<Path> markdownFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }
}
