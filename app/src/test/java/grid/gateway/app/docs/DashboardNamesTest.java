package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every row or panel of the Grafana dashboard a page sends the reader to ({@code the dashboard's "Pods measured per
 * cluster" panel}, {@code dashboard row "Load and admission"}) is a title the dashboard holds, so an operator finds
 * it. CHANGELOG.md is history and is not read.
 */
class DashboardNamesTest {
    /** "dashboard" (or "dashboard's"), then a quoted title with "row" or "panel" before or after it. */
    private static final Pattern NAMED =
            Pattern.compile("dashboard(?:'s)?\\s+(?:(?:row|panel)\\s+\"([^\"]+)\"|\"([^\"]+)\"\\s+(?:row|panel))");

    @Test
    void everyRowAndPanelAPageNames_isInTheDashboard() throws IOException {
        Path root = RepoDocs.root();
        Set<String> titles = titles(RepoDocs.read(DashboardUnitsTest.DASHBOARD));
        assertThat(titles).as("dashboard titles").contains("Load and admission");
        List<String> missing = new ArrayList<>();
        for (Path page : RepoDocs.files(
                root, p -> p.toString().endsWith(".md") && !p.toString().equals("CHANGELOG.md"))) {
            missing.addAll(
                    missing(root.relativize(page).toString().replace('\\', '/'), Files.readString(page), titles));
        }
        assertThat(missing)
                .as("dashboard rows and panels named on a page that the dashboard does not hold")
                .isEmpty();
    }

    @Test
    void missing_readsBothOrdersAcrossALineBreak() {
        String page = """
                the dashboard's "Pods" panel, the dashboard's
                "Gone" row, dashboard row "Load", the "tuned" row
                """;

        assertThat(missing("p.md", page, Set.of("Pods", "Load"))).containsExactly("p.md: \"Gone\"");
    }

    /** Each title {@code text} names as a dashboard row or panel that {@code titles} lacks, as "file: \"title\"". */
    static List<String> missing(String file, String text, Set<String> titles) {
        List<String> missing = new ArrayList<>();
        Matcher m = NAMED.matcher(text);
        while (m.find()) {
            String title = m.group(1) != null ? m.group(1) : m.group(2);
            if (!titles.contains(title)) {
                missing.add(file + ": \"" + title + "\"");
            }
        }
        return missing;
    }

    private static Set<String> titles(String dashboard) {
        Set<String> titles = new TreeSet<>();
        DashboardUnitsTest.panels(DashboardUnitsTest.model(dashboard))
                .forEach(p -> titles.add(p.getString("title", "")));
        return titles;
    }
}
