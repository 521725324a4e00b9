package grid.gateway.enginesim;

import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Test parser for a whole SSE body: events separated by a blank line, each with optional {@code event:} name. */
record Sse(Optional<String> name, String data) {
    static List<Sse> parse(String body) {
        if (!body.endsWith("\n\n")) {
            throw new AssertionError("a stream must end with a blank line: " + body);
        }
        List<Sse> events = new ArrayList<>();
        for (String block : body.substring(0, body.length() - 2).split("\n\n", -1)) {
            Optional<String> name = Optional.empty();
            String data = null;
            for (String line : block.split("\n", -1)) {
                if (line.startsWith("event: ")) {
                    name = Optional.of(line.substring("event: ".length()));
                } else if (line.startsWith("data: ")) {
                    data = line.substring("data: ".length());
                } else {
                    throw new AssertionError("unexpected line in an event: [" + line + "]");
                }
            }
            if (data == null) {
                throw new AssertionError("event without data: " + block);
            }
            events.add(new Sse(name, data));
        }
        return events;
    }

    JsonObject json() {
        return SimHttp.json(data);
    }
}
