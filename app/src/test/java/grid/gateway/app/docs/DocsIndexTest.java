package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README stays the short entry page and the reference lives in docs/: the README is under 250 lines, links every
 * page of docs/, and every relative link of the README, of docs/ and of the READMEs under etc/ reaches an existing
 * file and, when it names one, an existing heading there.
 */
class DocsIndexTest {
    private static final int README_MAX_LINES = 250;
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @Test
    void readme_isShort_andLinksEveryPageOfDocs() throws IOException {
        String readme = RepoDocs.read("README.md");
        assertThat(readme.lines().count()).as("README.md lines").isLessThan(README_MAX_LINES);

        Set<String> linked = new HashSet<>();
        for (Link link : links(RepoDocs.root().resolve("README.md"))) {
            linked.add(RepoDocs.root().relativize(link.target()).toString().replace('\\', '/'));
        }
        for (Path page : markdownFiles(RepoDocs.root().resolve("docs"))) {
            String name = RepoDocs.root().relativize(page).toString().replace('\\', '/');
            assertThat(linked).as("README links " + name).contains(name);
        }
    }

    @Test
    void everyRelativeLink_reachesAFileAndHeadingThatExist() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(RepoDocs.root().resolve("README.md"));
        files.add(RepoDocs.root().resolve("BENCHMARKS.md"));
        files.addAll(markdownFiles(RepoDocs.root().resolve("docs")));
        try (Stream<Path> etc = Files.walk(RepoDocs.root().resolve("etc"))) {
            etc.filter(p -> p.getFileName().toString().equals("README.md")).forEach(files::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            for (Link link : links(file)) {
                String where = RepoDocs.root().relativize(file) + ": (" + link.text() + ")";
                if (!Files.exists(link.target())) {
                    broken.add(where + " no such file");
                } else if (link.anchor() != null && !anchors(link.target()).contains(link.anchor())) {
                    broken.add(where + " no such heading");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void anchor_followsTheHostsRule() {
        assertThat(anchor("Lifecycle: restart, reload, shutdown")).isEqualTo("lifecycle-restart-reload-shutdown");
        assertThat(anchor("Evidence (`bin/routing-sim`)")).isEqualTo("evidence-binrouting-sim");
        assertThat(anchor("4. The keyer")).isEqualTo("4-the-keyer");
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

    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        if (!markdown.toString().endsWith(".md")) {
            return anchors;
        }
        boolean fenced = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            }
            int level = RepoDocs.headingLevel(line);
            if (!fenced && level > 0) {
                anchors.add(anchor(line.substring(level).strip()));
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
