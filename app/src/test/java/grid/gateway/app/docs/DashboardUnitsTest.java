package grid.gateway.app.docs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each panel of the Grafana dashboard states the unit of what it graphs: a panel in {@code bytes} graphs only
 * {@code *_bytes} families, and every panel that graphs only those is in {@code bytes}; a panel in seconds ({@code s})
 * graphs only {@code *_seconds} families. A count shown in bytes reads as a size to whoever watches it.
 * {@code DashboardTest} holds the metric names to what a gateway exports.
 */
class DashboardUnitsTest {
    static final String DASHBOARD = "etc/dashboards/grid-gateway.json";

    private static final Pattern METRIC = Pattern.compile("\\bgrid_[a-z0-9_]*[a-z0-9]");

    @Test
    void everyPanelsUnit_fitsTheFamiliesItGraphs() {
        List<String> wrong = wrongUnits(RepoDocs.read(DASHBOARD));
        assertThat(wrong)
                .as("panels of " + DASHBOARD + " whose unit does not fit their metrics")
                .isEmpty();
    }

    @Test
    void wrongUnits_findsACountInBytesBytesInAnotherUnitAndACountInSeconds() {
        String dashboard = """
                {"panels": [
                  {"title": "memory", "fieldConfig": {"defaults": {"unit": "bytes"}},
                   "targets": [{"expr": "sum(grid_inflight_body_bytes)"}]},
                  {"title": "calls", "fieldConfig": {"defaults": {"unit": "bytes"}},
                   "targets": [{"expr": "sum(increase(grid_calls_total[5m]))"}]},
                  {"title": "row", "panels": [
                    {"title": "memory short", "fieldConfig": {"defaults": {"unit": "short"}},
                     "targets": [{"expr": "grid_inflight_answer_bytes"}]},
                    {"title": "lag", "fieldConfig": {"defaults": {"unit": "s"}},
                     "targets": [{"expr": "grid_lag_seconds"}, {"expr": "grid_calls_total"}]}]}
                ]}
                """;

        assertThat(wrongUnits(dashboard))
                .containsExactly(
                        "calls: bytes over [grid_calls_total]",
                        "memory short: short over [grid_inflight_answer_bytes]",
                        "lag: s over [grid_calls_total, grid_lag_seconds]");
    }

    /** Each panel whose unit does not fit the families it queries, as "title: unit over [families]". */
    static List<String> wrongUnits(String dashboard) {
        List<String> wrong = new ArrayList<>();
        for (JsonObject panel : panels(model(dashboard))) {
            Set<String> families = families(panel);
            if (families.isEmpty()) {
                continue;
            }
            String unit = unit(panel);
            boolean allBytes = families.stream().allMatch(f -> f.endsWith("_bytes"));
            boolean allSeconds = families.stream().allMatch(f -> f.contains("_seconds"));
            boolean fits = unit.equals("bytes") ? allBytes : !allBytes && (!unit.equals("s") || allSeconds);
            if (!fits) {
                wrong.add(panel.getString("title", "?") + ": " + unit + " over " + families);
            }
        }
        return wrong;
    }

    /** The dashboard's JSON model. */
    static JsonObject model(String dashboard) {
        try (JsonReader reader = Json.createReader(new StringReader(dashboard))) {
            return reader.readObject();
        }
    }

    /** Every panel of the model, rows' nested panels included, in order. */
    static List<JsonObject> panels(JsonObject parent) {
        List<JsonObject> all = new ArrayList<>();
        for (JsonValue value :
                parent.getJsonArray("panels") == null ? List.<JsonValue>of() : parent.getJsonArray("panels")) {
            JsonObject panel = value.asJsonObject();
            all.add(panel);
            all.addAll(panels(panel));
        }
        return all;
    }

    private static Set<String> families(JsonObject panel) {
        Set<String> families = new TreeSet<>();
        if (panel.getJsonArray("targets") == null) {
            return families;
        }
        for (JsonValue target : panel.getJsonArray("targets")) {
            Matcher m = METRIC.matcher(target.asJsonObject().getString("expr", ""));
            while (m.find()) {
                families.add(m.group());
            }
        }
        return families;
    }

    private static String unit(JsonObject panel) {
        JsonObject config = panel.getJsonObject("fieldConfig");
        JsonObject defaults = config == null ? null : config.getJsonObject("defaults");
        return defaults == null ? "" : defaults.getString("unit", "");
    }
}
