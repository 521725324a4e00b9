package grid.gateway.app.access;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An access log sink for tests: collects the lines, parsed. A line is written when the request ends, which may be
 * just after the client has its answer, so {@link #next()} waits for it.
 */
public final class AccessLines implements AccessSink {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    @Override
    public void write(byte[] line, int length) {
        lines.add(new String(line, 0, length, StandardCharsets.UTF_8));
    }

    /** The next line, parsed, waiting up to 10 s; fails unless it is one JSON object ending in one newline. */
    public JsonObject next() {
        String line;
        try {
            line = lines.poll(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        if (line == null) {
            throw new AssertionError("no access log line within 10 s");
        }
        if (!line.endsWith("\n") || line.indexOf('\n') != line.length() - 1) {
            throw new AssertionError("not one line: " + line);
        }
        try (var reader = Json.createReader(new StringReader(line))) {
            return reader.readObject();
        }
    }

    /** The raw lines written so far, not waiting. */
    public List<String> raw() {
        return new ArrayList<>(lines);
    }
}
