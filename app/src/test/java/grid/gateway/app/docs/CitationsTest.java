package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every citation in the repository's code, configs and docs points inside the repository: a cited section of
 * {@code docs/design.md} exists there, and no file cites a document that is not in the repository.
 *
 * <p>The citation form is {@code docs/design.md §n} (also {@code design.md §n} inside docs/, and lists such as
 * {@code §3, §5} or ranges {@code §A1–§A8} after it). Older comments use forms that name documents kept outside
 * the repository; while {@link #LEGACY_CITATIONS_ALLOWED} is true each of them is read as the design.md section it
 * became, and that section must exist:
 *
 * <pre>
 *   old form                                   design.md section
 *   the spec's "§n"                            §n
 *   the API reference's "§n.m"                 §An.m
 *   the Helidon notes' "Pn" (or a bare "(Pn")  §Hn; their "§2" is §H0
 *   the reliability anchors' "§0.n"            §Rn; their letters A–J are sections of docs/reliability-checklist.md
 *   the style guide's "n.m"                    §Sn.m
 * </pre>
 *
 * Once they are replaced, set {@link #LEGACY_CITATIONS_ALLOWED} to false: every old form then fails, and so does a
 * tracker number in main code (the word issue followed by a number), which names a tracker a reader of the code cannot follow.
 */
class CitationsTest {
    /**
     * THE SWITCH: true while old citation forms remain in the code (each must still resolve to a design.md section);
     * false once every citation reads {@code docs/design.md §n}, so that an old form fails the build.
     */
    static final boolean LEGACY_CITATIONS_ALLOWED = false;

    private static final String DESIGN = "docs/design.md";
    private static final String ID = "(?:[A-Z]?[0-9]+(?:\\.[0-9]+)*|[A-Z](?![a-z]))";
    /** White space, also across a line break inside a comment block (a newline, then {@code *}). */
    private static final String WS = "\\s+(?:\\*\\s+)?";

    private static final String LIST = "((?:\\s*(?:,|–|-|and)\\s*§" + ID + ")*)";
    private static final Pattern HEADING_ID = Pattern.compile("^#{2,4} (" + ID + ")\\.? ", Pattern.MULTILINE);
    private static final Pattern DESIGN_CITATION = Pattern.compile("design\\.md" + WS + "§(" + ID + ")" + LIST);
    private static final Pattern SPEC_CITATION = Pattern.compile("SPEC" + WS + "§(" + ID + ")" + LIST);
    private static final Pattern API_CITATION = Pattern.compile("\\bapi\\.md`?,?" + WS + "§(" + ID + ")" + LIST);
    private static final Pattern HELIDON_CITATION =
            Pattern.compile("\\bhelidon\\.md`?,? (?:§2,? )?(?:P([0-9]+)((?:,? P[0-9]+)*)|(§2))");
    private static final Pattern RELIABILITY_CITATION =
            Pattern.compile("\\breliability\\.md`?,? (?:§0\\.([1-9])(?:, )?)?([A-J](?![a-z]))?");
    private static final Pattern STYLE_CITATION = Pattern.compile(
            "\\bSTYLE\\.md" + WS + "([0-9]+(?:\\.[0-9]+)*)((?:\\s*(?:,|and)\\s*[0-9]+(?:\\.[0-9]+)*)*)");
    private static final Pattern BARE_PITFALL = Pattern.compile("[(,;] ?P(1[0-5]|[1-9])\\b(?![.\\d])");
    private static final Pattern OUTSIDE_FILE =
            Pattern.compile("\\b(?:SPEC|STYLE|helidon|api|reliability|routers|tools|aesthetics-anchors)\\.md\\b");
    private static final Pattern ISSUE = Pattern.compile("\\b[Ii]ssues? [0-9]+");

    @Test
    void designMd_hasEverySectionOfTheContract() {
        Set<String> sections = sections();
        for (int n = 1; n <= 13; n++) {
            assertThat(sections).as("docs/design.md §" + n).contains(String.valueOf(n));
        }
        assertThat(sections).contains("A", "H", "R", "S");
    }

    @Test
    void everyCitation_namesASectionThatExists_andNoDocumentOutsideTheRepository() throws IOException {
        Set<String> sections = sections();
        List<String> problems = new ArrayList<>();
        for (Path file : scannedFiles()) {
            String relative = RepoDocs.root().relativize(file).toString().replace('\\', '/');
            String text = Files.readString(file);
            check(relative, text, sections, problems);
        }
        assertThat(problems)
                .as("citations that do not resolve inside the repository")
                .isEmpty();
    }

    @Test
    void check_resolvesEachForm_andReportsWhatDoesNot() {
        Set<String> sections = Set.of("5", "6", "9", "A1", "A8", "A5.6", "H0", "H8", "H14", "R", "R4", "S2.1");
        List<String> problems = new ArrayList<>();

        check("ok", "(SPEC §5, §9) design.md §6 api.md §A1 (reference/api.md §1–§8) api.md §5.6", sections, problems);
        check(
                "ok",
                "(reference/helidon.md §2, P8) (helidon.md, P14) reliability.md §0.4, G 84 STYLE.md 2.1",
                sections,
                problems);
        assertThat(unresolved(problems)).isEmpty();
        assertThat(problems).hasSize(LEGACY_CITATIONS_ALLOWED ? 0 : 8);

        problems.clear();
        check("Bad.java", "SPEC §14; docs/design.md §A9; tools.md; (P3, P8)", sections, problems);
        assertThat(unresolved(problems))
                .hasSize(4)
                .anySatisfy(p -> assertThat(p).contains("§14"))
                .anySatisfy(p -> assertThat(p).contains("§A9"))
                .anySatisfy(p -> assertThat(p).contains("tools.md"))
                .anySatisfy(p -> assertThat(p).contains("§H3"));
    }

    private static List<String> unresolved(List<String> problems) {
        return problems.stream().filter(p -> !p.contains("is an old form")).toList();
    }

    /** One form of citation: its pattern, the design.md sections a match cites, and whether it is an old form. */
    private record Form(Pattern pattern, Function<Matcher, List<String>> ids, boolean legacy) {}

    private static final List<Form> FORMS = List.of(
            new Form(DESIGN_CITATION, m -> ids("", m.group(1), m.group(2)), false),
            new Form(SPEC_CITATION, m -> ids("", m.group(1), m.group(2)), true),
            new Form(API_CITATION, m -> ids("A", m.group(1), m.group(2)), true),
            new Form(HELIDON_CITATION, CitationsTest::helidonIds, true),
            new Form(RELIABILITY_CITATION, CitationsTest::reliabilityIds, true),
            new Form(STYLE_CITATION, CitationsTest::styleIds, true));

    private static final Form BARE_PITFALL_FORM = new Form(BARE_PITFALL, m -> List.of("H" + m.group(1)), true);

    /** Adds to {@code problems} each citation of {@code text} (the file {@code file}) that does not resolve. */
    static void check(String file, String text, Set<String> sections, List<String> problems) {
        String rest = text;
        for (Form form : FORMS) {
            rest = resolve(file, rest, form, sections, problems);
        }
        if (file.endsWith(".java")) {
            rest = resolve(file, rest, BARE_PITFALL_FORM, sections, problems);
        }
        if (file.equals(DESIGN)) {
            Matcher own = Pattern.compile("§(" + ID + ")").matcher(rest);
            while (own.find()) {
                if (!sections.contains(own.group(1))) {
                    problems.add(file + ": refers to its own §" + own.group(1) + ", which it lacks");
                }
            }
        }
        Matcher outside = OUTSIDE_FILE.matcher(rest);
        while (outside.find()) {
            problems.add(file + ": names " + outside.group() + ", which is not in the repository");
        }
        if (!LEGACY_CITATIONS_ALLOWED && file.contains("/src/main/")) {
            Matcher issue = ISSUE.matcher(rest);
            while (issue.find()) {
                problems.add(file + ": names \"" + issue.group() + "\"; say what it is instead, or cite docs/");
            }
        }
    }

    /** Checks every match of {@code form} in {@code text}; returns the text with those matches blanked out. */
    private static String resolve(String file, String text, Form form, Set<String> sections, List<String> problems) {
        Matcher m = form.pattern().matcher(text);
        StringBuilder rest = new StringBuilder();
        while (m.find()) {
            if (form.legacy() && !LEGACY_CITATIONS_ALLOWED) {
                problems.add(file + ": \"" + m.group() + "\" is an old form; cite " + DESIGN + " §n");
            }
            for (String id : form.ids().apply(m)) {
                if (!sections.contains(id)) {
                    problems.add(file + ": \"" + m.group() + "\" cites " + DESIGN + " §" + id + ", which it lacks");
                }
            }
            m.appendReplacement(rest, " ");
        }
        m.appendTail(rest);
        return rest.toString();
    }

    /** The section ids of a citation: its first id and each of its list, each with {@code prefix} unless it has one. */
    private static List<String> ids(String prefix, String first, String list) {
        List<String> ids = new ArrayList<>();
        ids.add(prefixed(prefix, first));
        Matcher more = Pattern.compile("§(" + ID + ")").matcher(list == null ? "" : list);
        while (more.find()) {
            ids.add(prefixed(prefix, more.group(1)));
        }
        return ids;
    }

    private static String prefixed(String prefix, String id) {
        return id.startsWith(prefix) ? id : prefix + id;
    }

    private static List<String> helidonIds(Matcher m) {
        if (m.group(3) != null) {
            return List.of("H0"); // the Helidon notes' §2, the streaming loop
        }
        List<String> ids = new ArrayList<>();
        ids.add("H" + m.group(1));
        Matcher more = Pattern.compile("P([0-9]+)").matcher(m.group(2));
        while (more.find()) {
            ids.add("H" + more.group(1));
        }
        return ids;
    }

    private static List<String> reliabilityIds(Matcher m) {
        List<String> ids = new ArrayList<>();
        if (m.group(1) != null) {
            ids.add("R" + m.group(1));
        }
        if (m.group(2) != null) {
            ids.add("R"); // the checklist's letters: §R maps each to its section of docs/reliability-checklist.md
        }
        if (ids.isEmpty()) {
            ids.add("(no section)");
        }
        return ids;
    }

    private static List<String> styleIds(Matcher m) {
        List<String> ids = new ArrayList<>();
        ids.add("S" + m.group(1));
        Matcher more = Pattern.compile("[0-9]+(?:\\.[0-9]+)*").matcher(m.group(2));
        while (more.find()) {
            ids.add("S" + more.group());
        }
        return ids;
    }

    /** The section ids of docs/design.md: the number or letter that opens each of its headings. */
    static Set<String> sections() {
        Set<String> sections = new LinkedHashSet<>();
        Matcher m = HEADING_ID.matcher(RepoDocs.read(DESIGN));
        while (m.find()) {
            sections.add(m.group(1));
        }
        return sections;
    }

    /** The text files a reader follows citations in: code and resources of every module, configs, scripts, docs. */
    private static List<Path> scannedFiles() throws IOException {
        Path root = RepoDocs.root();
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !skipped(root.relativize(p)))
                    .filter(CitationsTest::isText)
                    .sorted()
                    .toList();
        }
    }

    private static boolean skipped(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            boolean hidden = name.startsWith(".") && !name.equals(".ci");
            if (hidden || name.equals("target") || name.equals("node_modules") || name.equals("work")) {
                return true;
            }
        }
        return relative.getFileName().toString().equals("CitationsTest.java");
    }

    private static boolean isText(Path file) {
        String name = file.getFileName().toString();
        return name.matches(".*\\.(java|md|ya?ml|xml|json|properties|sh|js|mjs|tpl|txt)")
                || name.equals("Dockerfile")
                || file.getParent().getFileName().toString().equals("bin")
                || name.equals("run")
                        && file.getParent().getFileName().toString().equals(".ci");
    }
}
