package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference marks "read at start" exactly the keys and blocks the gateway keeps from the start at a
 * reload: those {@code StartOnlyKeys} compares (and names in its WARNING). A key marked there but missing here would
 * change live while the docs say it waits for a restart; one missing there would be kept silently by the docs' reader.
 */
class StartOnlyMarksTest {
    static final String REFERENCE = "docs/configuration.md";
    static final String CODE = "app/src/main/java/grid/gateway/app/config/StartOnlyKeys.java";

    private static final String MARK = "read at start";
    private static final Pattern NOTE = Pattern.compile("note\\(\\s*keys,\\s*\"([^\"]+)\"");

    @Test
    void reference_marksExactlyTheKeysTheGatewayKeepsFromTheStart() {
        Set<String> code = noted(RepoDocs.read(CODE));
        assertThat(code).as("keys compared in " + CODE).contains("server.port", "tracing");

        assertThat(marked(RepoDocs.docSection(REFERENCE, "Configuration reference")))
                .as("keys and blocks marked \"" + MARK + "\" in " + REFERENCE + " vs those " + CODE + " keeps")
                .isEqualTo(code);
    }

    @Test
    void marked_readsBlockHeadingsAndRows() {
        String reference = """
                **`server`** (the keys marked "read at start" need a restart)

                | key | type | default | meaning |
                |---|---|---|---|
                | `port` | integer | `8080` | client listener; read at start |
                | `max_body_bytes` | integer | `1` | applied live |

                **`gateway.upstream`** (optional; read at start: a change needs
                a restart)

                | key | type | default | meaning |
                |---|---|---|---|
                | `connect_timeout_ms` | integer | `2000` | connect timeout |

                **`tracing`** (optional; see [Tracing](operations.md#tracing);
                read at start)

                | key | type | default | meaning |
                |---|---|---|---|
                | `service_name` | string | `x` | name |
                """;

        assertThat(marked(reference)).containsExactlyInAnyOrder("server.port", "gateway.upstream", "tracing");
        assertThat(noted("note(keys, \"server.port\", a, b);\nnote(\n keys,\n \"tracing\", a, b);"))
                .containsExactlyInAnyOrder("server.port", "tracing");
    }

    /** The keys a {@code StartOnlyKeys} source compares: the second argument of each {@code note} call. */
    static Set<String> noted(String source) {
        Set<String> keys = new TreeSet<>();
        Matcher m = NOTE.matcher(source);
        while (m.find()) {
            keys.add(m.group(1));
        }
        return keys;
    }

    /**
     * The blocks whose heading (the {@code **`block`**} line and its continuation up to the table) says it is read at
     * start, and the keys of other blocks whose row says so.
     */
    static Set<String> marked(String reference) {
        Set<String> marked = new TreeSet<>();
        String block = null;
        boolean blockMarked = false;
        List<String> heading = new ArrayList<>();
        for (String line : reference.split("\n")) {
            if (line.startsWith("**`")) {
                block = line.substring(3, line.indexOf("`**"));
                heading.clear();
                heading.add(line);
                blockMarked = false;
            } else if (block != null && !heading.isEmpty() && !line.startsWith("|") && !line.isBlank()) {
                heading.add(line); // the heading's continuation
            } else if (block != null && line.startsWith("|")) {
                if (!heading.isEmpty()) {
                    // Quoted ("read at start") in a heading names the mark; only a plain one marks the block.
                    blockMarked = String.join(" ", heading)
                            .replace("\"" + MARK + "\"", "")
                            .contains(MARK);
                    if (blockMarked) {
                        marked.add(block);
                    }
                    heading.clear();
                }
                List<String> cells = RepoDocs.cells(line);
                String key = RepoDocs.unquote(cells.getFirst());
                boolean row = key.matches("[a-z_]+") && cells.size() >= 4;
                if (row && !blockMarked && cells.getLast().contains(MARK)) {
                    marked.add(block + "." + key);
                }
            } else if (line.isBlank() && heading.isEmpty()) {
                block = null; // the table ended: prose follows until the next heading
            }
        }
        return marked;
    }
}
