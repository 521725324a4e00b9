package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

class JsonLogFormatterTest {
    private final JsonLogFormatter formatter = new JsonLogFormatter();

    private static JsonObject parse(String line) {
        assertThat(line).endsWith(System.lineSeparator());
        assertThat(line.strip()).doesNotContain("\n");
        try (var reader = Json.createReader(new StringReader(line))) {
            return reader.readObject();
        }
    }

    @Test
    void format_oneParseableObjectPerLine_withTheRecordsFields() {
        LogRecord record = new LogRecord(Level.WARNING, "reload refused: {0}");
        record.setParameters(new Object[] {"gateway.site: \"x\"\nsecond line"});
        record.setLoggerName("grid.gateway.app.config.ConfigWatcher");
        record.setInstant(Instant.parse("2026-01-02T03:04:05.678Z"));

        JsonObject line = parse(formatter.format(record));

        assertThat(line.getString("time")).isEqualTo("2026-01-02T03:04:05.678Z");
        assertThat(line.getString("level")).isEqualTo("WARNING");
        assertThat(line.getString("logger")).isEqualTo("grid.gateway.app.config.ConfigWatcher");
        assertThat(line.getString("message")).isEqualTo("reload refused: gateway.site: \"x\"\nsecond line");
        assertThat(line.containsKey("exception")).isFalse();
    }

    @Test
    void format_thrown_stackTraceInOneField() {
        LogRecord record = new LogRecord(Level.SEVERE, "failed");
        record.setThrown(new IllegalStateException("boom"));

        JsonObject line = parse(formatter.format(record));

        assertThat(line.getString("exception"))
                .startsWith("java.lang.IllegalStateException: boom")
                .contains("\tat ");
        assertThat(line.getString("logger")).isEmpty();
    }

    @Test
    void installIf_onlyForJson() {
        assertThat(JsonLogFormatter.installIf("text")).isFalse();
        assertThat(JsonLogFormatter.installIf("null")).isFalse();
    }
}
