package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What the pages name exists: every {@code grid_*} metric a page, the dashboard or the chart's alerts name is a family
 * of the metrics reference (which {@code MetricsReferenceTest} holds to the families a gateway exports), and every
 * class of this repository a page names with a member ({@code `SiteRouter.explain`}) or a test class it names
 * ({@code `RouteExplainIntegrationTest`}) is in the source. A renamed metric, class or method otherwise leaves the
 * pages pointing at nothing. CHANGELOG.md is history and is not read.
 */
class DocNamesTest {
    private static final String METRICS = "docs/metrics.md";

    /** A metric name, or a family prefix written {@code grid_prefix_sharing_*}; the plugin name is no metric. */
    private static final Pattern METRIC = Pattern.compile("\\bgrid_[a-z0-9_]*[a-z0-9](_\\*)?");

    private static final Set<String> NOT_METRICS = Set.of("grid_site_route");

    /** A backticked code name: an optional package, a class, an optional member, e.g. {@code access.AccessJson}. */
    private static final Pattern CODE_NAME =
            Pattern.compile("`(?:[a-z][a-z0-9]*\\.)*([A-Z][A-Za-z0-9]*)(?:\\.([a-zA-Z_][A-Za-z0-9_]*)(?:\\(\\))?)?`");

    @Test
    void everyMetricNamed_isAFamilyOfTheMetricsReference() throws IOException {
        Path root = RepoDocs.root();
        Set<String> families = families(RepoDocs.docSection(METRICS, "Metrics reference"));
        assertThat(families).as(METRICS + " families").contains("grid_route_prefix_affinity_total");
        List<String> unknown = new ArrayList<>();
        for (Path file : RepoDocs.files(root, DocNamesTest::namesMetrics)) {
            unknown.addAll(unknownMetrics(relative(root, file), Files.readString(file), families));
        }
        assertThat(unknown)
                .as("metrics named on a page, the dashboard or the chart that " + METRICS + " does not list")
                .isEmpty();
    }

    @Test
    void everyClassMemberAndTestNamed_isInTheSource() throws IOException {
        Path root = RepoDocs.root();
        Map<String, Path> classes = new HashMap<>();
        for (Path source : RepoDocs.files(root, p -> p.toString().endsWith(".java"))) {
            classes.putIfAbsent(source.getFileName().toString().replace(".java", ""), source);
        }
        assertThat(classes).as("Java classes found").containsKey("SiteRouter");
        List<String> missing = new ArrayList<>();
        for (Path page : RepoDocs.files(root, DocNamesTest::isPage)) {
            missing.addAll(missingCode(relative(root, page), Files.readString(page), sourceOf(classes)));
        }
        assertThat(missing)
                .as("classes and members named on a page that the source does not hold")
                .isEmpty();
    }

    @Test
    void checks_findAnUnknownMetricAMissingMemberAndAMissingTest() {
        Set<String> families = families("""
                | name | type | labels | meaning |
                |---|---|---|---|
                | `grid_a_total` | counter | — | a |
                | `grid_b_seconds` | histogram | — | b |
                | `grid_sharing_applied_total` | counter | — | c |
                """);
        String page = """
                `grid_a_total{outcome="hit"}`, rate(grid_b_seconds_bucket[5m]), `grid_sharing_*`,
                plugins.grid_site_route, grid_gone_total, `grid_other_*`
                """;
        assertThat(unknownMetrics("p.md", page, families))
                .containsExactly("p.md:2: grid_gone_total", "p.md:2: grid_other_*");

        Map<String, String> sources = Map.of("Router", "class Router { void explain() {} }", "RouterTest", "");
        String text =
                "`Router.explain`, `x.Router.route()`, `RouterTest`, `GoneTest`, `@ServerTest`, `Double.MAX_VALUE`";
        assertThat(missingCode("p.md", text, sources::get))
                .containsExactly("p.md:1: Router.route (no such member in Router)", "p.md:1: GoneTest (no such class)");
    }

    /** Each metric name of {@code text} that is no family of {@code families}, as "file:line: name". */
    static List<String> unknownMetrics(String file, String text, Set<String> families) {
        List<String> unknown = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = METRIC.matcher(lines[i]);
            while (m.find()) {
                String name = m.group();
                if (!NOT_METRICS.contains(name) && !known(name, families)) {
                    unknown.add(file + ":" + (i + 1) + ": " + name);
                }
            }
        }
        return unknown;
    }

    private static boolean known(String name, Set<String> families) {
        if (name.endsWith("_*")) {
            String prefix = name.substring(0, name.length() - 1);
            return families.stream().anyMatch(f -> f.startsWith(prefix));
        }
        return families.contains(name) || families.contains(name.replaceFirst("_(bucket|count|sum)$", ""));
    }

    /** The source of a class of this repository by its simple name, or null for a class of no file here. */
    private static Function<String, String> sourceOf(Map<String, Path> classes) {
        return name -> {
            Path source = classes.get(name);
            if (source == null) {
                return null;
            }
            try {
                return Files.readString(source);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    /**
     * Each code name of {@code text} the source does not hold, as "file:line: name (why)": a member not in its class's
     * source, or a test class (a name ending in {@code Test}) that does not exist; {@code sources} gives a class's
     * source, or null for a class of no file here (a JDK or library class, which is not checked).
     */
    static List<String> missingCode(String file, String text, Function<String, String> sources) {
        List<String> missing = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = CODE_NAME.matcher(lines[i]);
            while (m.find()) {
                String type = m.group(1);
                String member = m.group(2);
                String source = sources.apply(type);
                String at = file + ":" + (i + 1) + ": ";
                if (source == null) {
                    if (member == null && type.endsWith("Test")) {
                        missing.add(at + type + " (no such class)");
                    }
                } else if (member != null
                        && !Pattern.compile("\\b" + member + "\\b")
                                .matcher(source)
                                .find()) {
                    missing.add(at + type + "." + member + " (no such member in " + type + ")");
                }
            }
        }
        return missing;
    }

    /** The first-column names of the metrics reference's table. */
    static Set<String> families(String reference) {
        Set<String> families = new LinkedHashSet<>();
        for (List<String> row : RepoDocs.tablesByHeading(reference).getOrDefault("", List.of())) {
            families.add(RepoDocs.unquote(row.get(0)));
        }
        return families;
    }

    /** Markdown pages other than the changelog. */
    private static boolean isPage(Path relative) {
        return relative.toString().endsWith(".md") && !relative.toString().equals("CHANGELOG.md");
    }

    /** The pages, and what queries metrics under etc/: the dashboard, the chart's templates and values. */
    private static boolean namesMetrics(Path relative) {
        String name = relative.toString();
        return isPage(relative)
                || (relative.getName(0).toString().equals("etc")
                        && (name.endsWith(".json") || name.endsWith(".yaml") || name.endsWith(".tpl")));
    }

    private static String relative(Path root, Path file) {
        return root.relativize(file).toString().replace('\\', '/');
    }
}
