package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.endpoint.Endpoint;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.endpoint.ErrorShape;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A request line over 4096 bytes is refused (414) before Helidon reads its method or target; the gateway keeps the
 * line's start, so the refusal is in the shape of the API its target lies under (Anthropic's for a long query on
 * {@code /v1/messages} or a long segment under it), OpenAI's for a path under no API, and without content to HEAD. For
 * every literal row of the endpoint table.
 */
class OverlongRequestLineIntegrationTest {
    @RegisterExtension
    static final BehindOneGateway GRID = new BehindOneGateway();

    private static final String LONG = "a".repeat(5000);

    @Test
    void overlongRequestLine_everyApiPath_refusedInItsApisShape_headWithoutContent() throws IOException {
        List<String> failures = new ArrayList<>();
        for (Endpoint row : EndpointTable.standard().rows()) {
            if (row.path().contains("{")) {
                continue;
            }
            String under = row.path().substring(0, row.path().lastIndexOf('/'));
            ErrorShape parent =
                    EndpointTable.standard().classify(under + "/x").endpoint().errors();
            for (String method : List.of("POST", "GET", "HEAD")) {
                check(failures, method, row.path() + "?q=" + LONG, row.errors());
                check(failures, method, row.path() + "/" + LONG, row.errors());
                // Glued to the row's last segment: another path, under whatever the row lies under.
                check(failures, method, row.path() + LONG, parent);
            }
        }
        assertThat(failures).isEmpty();
        assertThat(GRID.forwarded()).isEmpty();
    }

    private static void check(List<String> failures, String method, String target, ErrorShape shape)
            throws IOException {
        String answer = exchange(method + " " + target + " HTTP/1.1\r\nHost: gw\r\n\r\n");
        int split = answer.indexOf("\r\n\r\n");
        String head = answer.substring(0, split + 4);
        String body = answer.substring(split + 4);
        boolean shaped = method.equals("HEAD")
                ? body.isEmpty()
                : shape == ErrorShape.ANTHROPIC
                        ? body.startsWith("{\"type\":\"error\"")
                        : body.startsWith("{\"error\":") && body.contains("\"code\":\"uri_too_long\"");
        if (!head.startsWith("HTTP/1.1 414 ") || !head.contains("\r\nConnection: close\r\n") || !shaped) {
            failures.add(method + " " + target.substring(0, Math.min(40, target.length())) + "… (" + shape + ") -> "
                    + answer);
        }
    }

    /** The whole answer to {@code request}, read to the connection's end (a 414 closes it). */
    private static String exchange(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", GRID.gateway.server.port())) {
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
