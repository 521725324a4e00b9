package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = LABEL.matcher(lines[i]);
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
