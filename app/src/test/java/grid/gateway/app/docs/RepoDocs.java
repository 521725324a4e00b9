package grid.gateway.app.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Test fixture: the repository's files the operator reads (README.md, docs/, etc/), found from the module directory
 * the tests run in, and the reference tables of docs/ parsed into rows.
 */
public final class RepoDocs {
    private RepoDocs() {}

    /** The repository root: the nearest folder above the working directory holding README.md and etc/. */
    public static Path root() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("README.md"))
                    && Files.isRegularFile(dir.resolve("etc").resolve("gateway-example.yaml"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no README.md with etc/gateway-example.yaml above "
                + Path.of("").toAbsolutePath());
    }

    /**
     * The repository's files whose path relative to the root satisfies {@code wanted}, sorted; build output
     * ({@code target}), dependencies ({@code node_modules}), benchmark scratch ({@code work}) and hidden folders are
     * left out.
     */
    public static List<Path> files(Path root, Predicate<Path> wanted) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> !generated(root.relativize(p)))
                    .filter(p -> wanted.test(root.relativize(p)))
                    .sorted()
                    .toList();
        }
    }

    private static boolean generated(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.startsWith(".") || name.equals("target") || name.equals("node_modules") || name.equals("work")) {
                return true;
            }
        }
        return false;
    }

    /** The text of a file under the repository root. */
    public static String read(String relative) {
        try {
            return Files.readString(root().resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The body of the section titled {@code title} in the Markdown file {@code relative} (e.g. {@code
     * docs/configuration.md}): the lines after its heading ({@code #}, {@code ##}, ... {@code title}) up to the next
     * heading of the same or a higher level.
     */
    public static String docSection(String relative, String title) {
        return section(read(relative), title, relative);
    }

    static String section(String markdown, String title, String file) {
        String[] lines = markdown.split("\n", -1);
        int level = -1;
        StringBuilder body = new StringBuilder();
        for (String line : lines) {
            int hashes = headingLevel(line);
            if (level < 0) {
                if (hashes > 0 && line.substring(hashes).strip().equals(title)) {
                    level = hashes;
                }
            } else if (hashes > 0 && hashes <= level) {
                break;
            } else {
                body.append(line).append('\n');
            }
        }
        if (level < 0) {
            throw new AssertionError(file + " has no section titled '" + title + "'");
        }
        return body.toString();
    }

    /** The level of a Markdown heading line ({@code ## x} → 2), or 0 when the line is no heading. */
    static int headingLevel(String line) {
        int hashes = 0;
        while (hashes < line.length() && line.charAt(hashes) == '#') {
            hashes++;
        }
        return hashes > 0 && hashes <= 6 && hashes < line.length() && line.charAt(hashes) == ' ' ? hashes : 0;
    }

    /**
     * The rows of every Markdown table in {@code text} (header and separator rows left out), each as its cells with
     * surrounding white space trimmed, keyed by the nearest line above the table that starts with {@code **`} (the
     * block heading of the configuration reference, e.g. {@code server} for {@code **`server`** (read at start)});
     * tables without such a heading since the previous table are keyed by the empty string.
     */
    public static Map<String, List<List<String>>> tablesByHeading(String text) {
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        String heading = "";
        boolean header = true;
        boolean inTable = false;
        for (String line : text.split("\n")) {
            if (inTable && !line.startsWith("|")) {
                heading = ""; // a heading names the one table that follows it
            }
            inTable = line.startsWith("|");
            if (line.startsWith("**`")) {
                heading = line.substring(3, line.indexOf("`**"));
                header = true;
            } else if (line.startsWith("|")) {
                List<String> cells = cells(line);
                if (header) {
                    header = false; // the header row
                } else if (!cells.stream().allMatch(c -> c.matches(":?-+:?"))) {
                    tables.computeIfAbsent(heading, h -> new ArrayList<>()).add(cells);
                }
            } else {
                header = true;
            }
        }
        return tables;
    }

    /** The cells of one table row; {@code \|} inside a cell is a literal bar. */
    static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        for (int i = 1; i < row.length(); i++) {
            char c = row.charAt(i);
            if (c == '\\' && i + 1 < row.length() && row.charAt(i + 1) == '|') {
                cell.append('|');
                i++;
            } else if (c == '|') {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        return cells;
    }

    /** {@code text} without one pair of surrounding backticks, if it has them. */
    public static String unquote(String text) {
        return text.length() >= 2 && text.startsWith("`") && text.endsWith("`")
                ? text.substring(1, text.length() - 1)
                : text;
    }
}
