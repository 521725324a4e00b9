package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Docs, code comments and test names describe what is true now: none names a tracker entry, a numbered work period
 * or the person who asked for a change. History belongs in CHANGELOG.md (left out here) and in commit messages. Read:
 * every Markdown file but the changelog, every Java file, and the scripts under bench/ and bin/.
 */
class HistoryLabelsTest {
    /** A tracker number, a numbered work period, or the requester's role, in any case. */
    private static final Pattern LABEL = Pattern.compile("(?i)\\b(?:issues?|sessions?) [0-9]|\\bproduct\\sowner\\b");

    /**
     * Wording that tells what changed rather than what is: the pages an operator reads, and every page of docs/ but
     * the measurement pages, state the behaviour in force, and a comparison with an earlier one belongs in
     * CHANGELOG.md.
     */
    private static final Pattern CHANGE = Pattern.compile("(?i)\\b(?:as before|used to|no longer|previously|formerly"
            + "|first (?:wording|contract)|was changed|(?:wrote|did) before|the old way|found by)\\b");

    /** The pages an operator reads: the entry page, the map, the reference and how-to pages, the deployment files. */
    private static final List<String> OPERATOR_PAGES = List.of(
            "README.md",
            "docs/README.md",
            "docs/operations.md",
            "docs/configuration.md",
            "docs/metrics.md",
            "docs/failure-behaviour.md",
            "docs/security.md",
            "docs/tls.md",
            "docs/vllm.md",
            "docs/stored-ids.md",
            "etc/helm/grid-gateway/README.md",
            "etc/helm/grid-gateway/values.yaml",
            "etc/tls/README.md",
            "etc/keys/README.md");

    /**
     * Pages of docs/ that record measurements of variants taken side by side ("X measured A, Y measured B"), where a
     * comparison is the fact itself; every other page of docs/ is read like an operator's page.
     */
    private static final Set<String> MEASUREMENT_PAGES = Set.of("docs/performance-notes.md", "docs/routing-studies.md");

    @Test
    void noDocCommentOrTestName_carriesAHistoryLabel() throws IOException {
        Path root = RepoDocs.root();
        List<Path> files = RepoDocs.files(root, HistoryLabelsTest::read);
        assertThat(files).as("files read").contains(root.resolve("README.md"), root.resolve("BENCHMARKS.md"));
        List<String> found = new ArrayList<>();
        for (Path file : files) {
            found.addAll(labels(root.relativize(file).toString().replace('\\', '/'), Files.readString(file)));
        }
        assertThat(found)
                .as("history labels: say what is true now, or the decision and its reason")
                .isEmpty();
    }

    @Test
    void operatorPages_sayWhatIsTrueNow_notWhatChanged() throws IOException {
        Path root = RepoDocs.root();
        List<String> pages = new ArrayList<>(OPERATOR_PAGES);
        for (Path example : RepoDocs.files(
                root,
                p -> p.getNameCount() == 2
                        && p.getName(0).toString().equals("etc")
                        && p.toString().endsWith(".yaml"))) {
            pages.add(root.relativize(example).toString().replace('\\', '/'));
        }
        for (Path doc : RepoDocs.files(
                root,
                p -> p.getNameCount() == 2
                        && p.getName(0).toString().equals("docs")
                        && p.toString().endsWith(".md"))) {
            String page = root.relativize(doc).toString().replace('\\', '/');
            if (!pages.contains(page) && !MEASUREMENT_PAGES.contains(page)) {
                pages.add(page);
            }
        }
        assertThat(pages).as("pages read").contains("etc/gateway-example.yaml", "docs/design.md", "docs/decisions.md");
        List<String> found = new ArrayList<>();
        for (String page : pages) {
            found.addAll(matches(CHANGE, page, RepoDocs.read(page)));
        }
        assertThat(found)
                .as("history wording on an operator's page: say what is true now (history goes in CHANGELOG.md)")
                .isEmpty();
    }

    @Test
    void changeWording_findsComparisonsWithAnEarlierState() {
        String text = String.join(
                "\n",
                "the request passes as before",
                "the first wording of design.md said 10; it used to be 10, and is no longer",
                "what the generator wrote before it. Found by a benchmark",
                "a body read before the answer; the wording of the API; a used token",
                "beyond the first contract, as one of 4 KiB did before; it used to hold them, read the old way");

        assertThat(matches(CHANGE, "x.md", text))
                .containsExactly(
                        "x.md:1: as before",
                        "x.md:2: first wording",
                        "x.md:2: used to",
                        "x.md:2: no longer",
                        "x.md:3: wrote before",
                        "x.md:3: Found by",
                        "x.md:5: first contract",
                        "x.md:5: did before",
                        "x.md:5: used to",
                        "x.md:5: the old way");
    }

    @Test
    void labels_findsEachKindAndLeavesOrdinaryWordsAlone() {
        String text = String.join(
                "\n",
                "Fixed since " + "Issue" + " 12's pass.",
                "measured in " + "session" + " 26 (see " + "issues" + " 7 and 12)",
                "a rule for the " + "product" + " owner",
                "the session_id field, an issue with the pool, sessions of 2-10 turns, the product's rules");

        assertThat(labels("x.md", text))
                .containsExactly(
                        "x.md:1: " + "Issue" + " 1",
                        "x.md:2: " + "session" + " 2",
                        "x.md:2: " + "issues" + " 7",
                        "x.md:3: product" + " owner");
    }

    /** Each label in {@code text}, as "file:line: label". */
    static List<String> labels(String file, String text) {
        return matches(LABEL, file, text);
    }

    /** Each match of {@code pattern} in {@code text}, as "file:line: match". */
    static List<String> matches(Pattern pattern, String file, String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = pattern.matcher(lines[i]);
            while (m.find()) {
                found.add(file + ":" + (i + 1) + ": " + m.group());
            }
        }
        return found;
    }

    private static boolean read(Path relative) {
        String name = relative.getFileName().toString();
        String top = relative.getName(0).toString();
        boolean script = (top.equals("bench") || top.equals("bin")) && relative.getNameCount() > 1;
        return (name.endsWith(".md") && !relative.toString().equals("CHANGELOG.md"))
                || name.endsWith(".java")
                || script;
    }
}
