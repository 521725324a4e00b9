package grid.gateway.app.http;

import grid.gateway.routing.grid.Grid;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/**
 * {@code GET /v1/models}: the models of the grid, in OpenAI's list shape (docs/design.md §8).
 *
 * <p>Stateless and thread-safe.
 */
final class ModelList {
    private ModelList() {}

    static void send(ServerResponse response, Grid grid) {
        String data = grid.models().stream()
                .sorted()
                .map(m -> "{\"id\":\"" + jsonEscape(m) + "\",\"object\":\"model\",\"owned_by\":\"grid-gateway\"}")
                .collect(Collectors.joining(","));
        response.header(HeaderValues.CONTENT_TYPE_JSON);
        response.send(("{\"object\":\"list\",\"data\":[" + data + "]}").getBytes(StandardCharsets.UTF_8));
    }

    private static String jsonEscape(String text) {
        StringBuilder out = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
