package grid.gateway.app;

import jakarta.json.Json;
import jakarta.json.stream.JsonGenerator;
import jakarta.json.stream.JsonGeneratorFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The gateway's own log lines (java.util.logging, which System.Logger and Helidon log through) as one JSON object a
 * line, for log collectors that parse JSON: {@code time}, {@code level}, {@code logger}, {@code message}, and
 * {@code exception} (its stack trace as text) when a record has one.
 *
 * <p>Thread-safe: each line gets its own generator.
 */
public final class JsonLogFormatter extends Formatter {
    /** The value of {@code GRID_GATEWAY_LOG_FORMAT} that turns this formatter on. */
    public static final String JSON = "json";

    private final JsonGeneratorFactory factory = Json.createGeneratorFactory(Map.of());

    /** A formatter; {@link #installIf} puts one on every root handler. */
    public JsonLogFormatter() {}

    /**
     * With {@code format} {@value #JSON}, formats every handler of the root logger (the console handler writing to
     * stderr) with this formatter; any other value keeps the default text lines. Returns whether it did.
     */
    public static boolean installIf(String format) {
        if (!JSON.equals(format)) {
            return false;
        }
        for (Handler handler : Logger.getLogger("").getHandlers()) {
            handler.setFormatter(new JsonLogFormatter());
        }
        return true;
    }

    @Override
    public String format(LogRecord record) {
        StringWriter text = new StringWriter(256);
        try (JsonGenerator json = factory.createGenerator(text)) {
            json.writeStartObject();
            json.write("time", record.getInstant().toString());
            json.write("level", record.getLevel().getName());
            json.write("logger", record.getLoggerName() == null ? "" : record.getLoggerName());
            String message = formatMessage(record);
            json.write("message", message == null ? "" : message);
            Throwable thrown = record.getThrown();
            if (thrown != null) {
                StringWriter trace = new StringWriter();
                thrown.printStackTrace(new PrintWriter(trace));
                json.write("exception", trace.toString());
            }
            json.writeEnd();
        }
        return text.append(System.lineSeparator()).toString();
    }
}
