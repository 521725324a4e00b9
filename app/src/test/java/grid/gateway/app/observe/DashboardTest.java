package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.docs.RepoDocs;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard {@code etc/dashboards/grid-gateway.json} graphs every metric family a real gateway exports
 * on its admin {@code /metrics} after traffic, names no metric the gateway does not export, and is a well-formed
 * Grafana model (schema version, grid positions, a templated Prometheus datasource).
 */
class DashboardTest {
    static final String DASHBOARD = "etc/dashboards/grid-gateway.json";

    /** Functions, aggregations and modifiers a PromQL expression may call with parentheses. */
    private static final Set<String> PROMQL_CALLS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "count",
            "stddev",
            "stdvar",
            "topk",
            "bottomk",
            "quantile",
            "count_values",
            "group",
            "by",
            "without",
            "on",
            "ignoring",
            "group_left",
            "group_right",
            "rate",
            "irate",
            "increase",
            "delta",
            "idelta",
            "deriv",
            "histogram_quantile",
            "avg_over_time",
            "max_over_time",
            "min_over_time",
            "sum_over_time",
            "last_over_time",
            "clamp_min",
            "clamp_max",
            "abs",
            "vector",
            "scalar",
            "label_replace",
            "time",
            "changes",
            "resets",
            "absent",
            "label_values");

    private static final Pattern METRIC = Pattern.compile("\\bgrid_[A-Za-z0-9_:]*");
    private static final Pattern CALL = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*\\(");

    private static GatewayHarness gateway;
    private static ExportedFamilies exported;
    private static JsonObject dashboard;

    @BeforeAll
    static void scrapeAndLoad(@TempDir Path dir) throws Exception {
        gateway = ExportedTraffic.twoSites(dir);
        exported = ExportedFamilies.of(ExportedTraffic.thenScrape(gateway));
        try (JsonReader reader = Json.createReader(new StringReader(RepoDocs.read(DASHBOARD)))) {
            dashboard = reader.readObject();
        }
    }

    @AfterAll
    static void stop() {
        gateway.close();
    }

    @Test
    void scrape_afterTraffic_showsTheGatewaysFamilies() {
        // Guards the other tests: an empty scrape would make "every family is graphed" pass vacuously.
        assertThat(exported.types())
                .containsKeys(
                        "grid_route_prefix_affinity_total",
                        "grid_upstream_requests_total",
                        "grid_upstream_latency_seconds",
                        "grid_cluster_admitted");
        assertThat(exported.types()).containsEntry("grid_upstream_latency_seconds", "histogram");
    }

    @Test
    void dashboard_everyExportedFamily_usedByAPanel() {
        Set<String> graphed = new TreeSet<>();
        for (String name : metricNames(panelExpressions())) {
            graphed.add(exported.familyOf(name));
        }

        assertThat(exported.types().keySet())
                .as("families exported by the gateway but graphed by no panel of " + DASHBOARD)
                .allSatisfy(family -> assertThat(graphed).contains(family));
    }

    @Test
    void dashboard_everyMetricName_exported() {
        List<String> expressions = new ArrayList<>(panelExpressions());
        expressions.addAll(variableQueries());

        assertThat(metricNames(expressions))
                .as("metric names in " + DASHBOARD + " that the gateway does not export (exported: "
                        + exported.sampleNames() + ")")
                .isSubsetOf(exported.sampleNames());
        // Every query reads a gateway metric: a name outside grid_* would escape the check above.
        assertThat(expressions)
                .allSatisfy(e -> assertThat(METRIC.matcher(e).find()).as(e).isTrue());
    }

    @Test
    void dashboard_expressions_balancedAndCallOnlyPromQlFunctions() {
        List<String> expressions = new ArrayList<>(panelExpressions());
        expressions.addAll(variableQueries());

        for (String expr : expressions) {
            assertThat(unbalanced(expr)).as(expr).isEmpty();
            Matcher call = CALL.matcher(withoutStrings(expr));
            while (call.find()) {
                assertThat(PROMQL_CALLS).as(expr).contains(call.group(1));
            }
        }
    }

    @Test
    void dashboard_grafanaModel_schemaVariablesAndLayout() {
        assertThat(dashboard.getInt("schemaVersion")).isBetween(36, 41);
        assertThat(dashboard.getString("uid")).isEqualTo("grid-gateway");
        assertThat(dashboard.getString("title")).isNotBlank();
        JsonObject datasource = variables().stream()
                .filter(v -> v.getString("name").equals("datasource"))
                .findFirst()
                .orElseThrow();
        assertThat(datasource.getString("type")).isEqualTo("datasource");
        assertThat(datasource.getString("query")).isEqualTo("prometheus");
        assertThat(variables()).extracting(v -> v.getString("name")).contains("job", "instance", "cluster");

        Set<Integer> ids = new HashSet<>();
        List<int[]> boxes = new ArrayList<>();
        for (JsonObject panel : panels()) {
            assertThat(ids.add(panel.getInt("id")))
                    .as("unique id " + panel.getInt("id"))
                    .isTrue();
            JsonObject pos = panel.getJsonObject("gridPos");
            int[] box = {pos.getInt("x"), pos.getInt("y"), pos.getInt("w"), pos.getInt("h")};
            assertThat(box[0]).isNotNegative();
            assertThat(box[2]).isPositive();
            assertThat(box[0] + box[2]).as(panel.getString("title")).isLessThanOrEqualTo(24);
            assertThat(box[3]).isPositive();
            for (int[] other : boxes) {
                assertThat(overlap(box, other))
                        .as(panel.getString("title") + " overlaps a panel")
                        .isFalse();
            }
            boxes.add(box);
            if (!panel.getString("type").equals("row")) {
                assertPanelQueries(panel);
            }
        }
        assertThat(panels()).filteredOn(p -> p.getString("type").equals("row")).hasSizeGreaterThanOrEqualTo(4);
    }

    private static void assertPanelQueries(JsonObject panel) {
        String title = panel.getString("title");
        assertThat(panel.getJsonObject("datasource").getString("uid")).as(title).isEqualTo("${datasource}");
        assertThat(panel.getJsonObject("fieldConfig").getJsonObject("defaults").getString("unit"))
                .as(title + " unit")
                .isNotBlank();
        JsonArray targets = panel.getJsonArray("targets");
        assertThat(targets).as(title).isNotEmpty();
        Set<String> refIds = new HashSet<>();
        for (JsonObject target : targets.getValuesAs(JsonObject.class)) {
            assertThat(target.getString("expr")).as(title).isNotBlank();
            assertThat(refIds.add(target.getString("refId"))).as(title).isTrue();
        }
    }

    private static boolean overlap(int[] a, int[] b) {
        return a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
    }

    /** Every panel, those inside collapsed rows included. */
    private static List<JsonObject> panels() {
        List<JsonObject> panels = new ArrayList<>();
        for (JsonObject panel : dashboard.getJsonArray("panels").getValuesAs(JsonObject.class)) {
            panels.add(panel);
            if (panel.containsKey("panels")) {
                panels.addAll(panel.getJsonArray("panels").getValuesAs(JsonObject.class));
            }
        }
        return panels;
    }

    private static List<String> panelExpressions() {
        List<String> exprs = new ArrayList<>();
        for (JsonObject panel : panels()) {
            if (panel.containsKey("targets")) {
                for (JsonObject target : panel.getJsonArray("targets").getValuesAs(JsonObject.class)) {
                    exprs.add(target.getString("expr"));
                }
            }
        }
        return exprs;
    }

    private static List<JsonObject> variables() {
        return dashboard.getJsonObject("templating").getJsonArray("list").getValuesAs(JsonObject.class);
    }

    private static List<String> variableQueries() {
        List<String> queries = new ArrayList<>();
        for (JsonObject variable : variables()) {
            if (variable.getString("type").equals("query")) {
                JsonValue query = variable.get("query");
                queries.add(
                        query instanceof JsonString text
                                ? text.getString()
                                : query.asJsonObject().getString("query"));
            }
        }
        return queries;
    }

    private static Set<String> metricNames(List<String> expressions) {
        Set<String> names = new TreeSet<>();
        for (String expr : expressions) {
            Matcher m = METRIC.matcher(withoutStrings(expr));
            while (m.find()) {
                names.add(m.group());
            }
        }
        return names;
    }

    /** {@code expr} with the content of its string literals blanked, so label values are not read as names. */
    private static String withoutStrings(String expr) {
        return expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"");
    }

    /** Empty when every bracket of {@code expr} closes in order, else a description of the first that does not. */
    private static String unbalanced(String expr) {
        String text = withoutStrings(expr);
        StringBuilder open = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ("({[".indexOf(c) >= 0) {
                open.append(c);
            } else if (")}]".indexOf(c) >= 0) {
                char expected = "({[".charAt(")}]".indexOf(c));
                if (open.isEmpty() || open.charAt(open.length() - 1) != expected) {
                    return "unexpected '" + c + "' at " + i;
                }
                open.setLength(open.length() - 1);
            }
        }
        return open.isEmpty() ? "" : "unclosed '" + open + "'";
    }
}
