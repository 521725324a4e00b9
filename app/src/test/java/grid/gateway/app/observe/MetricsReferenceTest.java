package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.docs.RepoDocs;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics reference table (docs/metrics.md) lists exactly the {@code grid_*} families a real gateway exports after
 * traffic, each with its Prometheus type, its label names and, where the row lists them, exactly its label values.
 */
class MetricsReferenceTest {
    private static final Pattern LABEL = Pattern.compile("`([a-z_]+)`(:([^`]*))?");

    private static GatewayHarness gateway;
    private static ExportedFamilies exported;
    private static Map<String, List<String>> rows;

    @BeforeAll
    static void scrape(@TempDir Path dir) throws Exception {
        gateway = ExportedTraffic.twoSites(dir);
        exported = ExportedFamilies.of(ExportedTraffic.thenScrape(gateway));
        rows = new LinkedHashMap<>();
        for (List<String> row : RepoDocs.tablesByHeading(RepoDocs.docSection("docs/metrics.md", "Metrics reference"))
                .getOrDefault("", List.of())) {
            rows.put(RepoDocs.unquote(row.get(0)), row);
        }
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void readme_metricsReference_namesExactlyTheExportedFamilies() {
        assertThat(exported.types()).isNotEmpty();

        assertThat(rows.keySet())
                .as("docs/metrics.md rows vs the families on /metrics")
                .containsExactlyInAnyOrderElementsOf(exported.types().keySet());
    }

    @Test
    void readme_metricsReference_typeOfEachFamily() {
        for (Map.Entry<String, String> family : exported.types().entrySet()) {
            List<String> row = rows.get(family.getKey());
            assertThat(row).as(family.getKey()).isNotNull();
            assertThat(row.get(1)).as(family.getKey() + " type").startsWith(family.getValue());
        }
    }

    @Test
    void readme_metricsReference_labelNamesAndListedValues() {
        for (String family : exported.types().keySet()) {
            List<String> row = rows.get(family);
            assertThat(row).as(family).isNotNull();
            Map<String, Set<String>> documented = labels(row.get(2));
            assertThat(documented.keySet()).as(family + " labels").isEqualTo(exported.labelNames(family));
            documented.forEach((label, values) -> {
                if (!values.isEmpty()) {
                    assertThat(exported.labelValues(family, label))
                            .as(family + " " + label + " values")
                            .isEqualTo(values);
                }
            });
        }
    }

    /** The label names of a labels cell, each with the values listed after it ({@code `outcome`: hit, load}). */
    static Map<String, Set<String>> labels(String cell) {
        Map<String, Set<String>> labels = new LinkedHashMap<>();
        if (cell.equals("—") || cell.equals("-")) {
            return labels;
        }
        Matcher m = LABEL.matcher(cell);
        while (m.find()) {
            Set<String> values = new TreeSet<>();
            if (m.group(3) != null) {
                for (String value : m.group(3).split(",")) {
                    String v = value.strip().replaceAll("[();].*$", "").strip();
                    if (!v.isEmpty()) {
                        values.add(v);
                    }
                }
            }
            labels.put(m.group(1), values);
        }
        return labels;
    }
}
