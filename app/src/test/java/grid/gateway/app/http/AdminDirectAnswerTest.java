package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.ManualClock;
import io.helidon.http.DirectHandler;
import io.helidon.http.HeaderNames;
import io.helidon.http.ServerResponseHeaders;
import io.helidon.http.Status;
import io.helidon.webserver.http.DirectTransportRequest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the admin listener says when Helidon would answer a request itself with a status that is no parser refusal (a
 * path its routing does not find, a status a handler threw): the gateway's text with that status, never Helidon's
 * message (its {@code Endpoint not found}, or nothing). The admin listener's filters and pages decide every request a
 * client can send first ({@code AdminAnswersTableIntegrationTest}), so this is reached only if they miss one.
 */
class AdminDirectAnswerTest {
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "404|Endpoint not found|404 Not Found: the admin port serves GET /metrics",
                "404||404 Not Found: the admin port serves GET /metrics",
                "415|Unsupported media type: io.helidon.Something|415 Unsupported Media Type",
                "403||403 Forbidden"
            })
    void statusHelidonWouldAnswer_theGatewaysText(int code, String message, String text) {
        DirectHandler handler = ParseRefusal.onAdmin(new ManualClock());

        DirectHandler.TransportResponse answer = handler.handle(
                DirectTransportRequest.create("HTTP/1.1", "GET", "/metrics/x"),
                DirectHandler.EventType.OTHER,
                Status.create(code),
                ServerResponseHeaders.create(),
                message == null ? "" : message);

        assertThat(answer.status().code()).isEqualTo(code);
        assertThat(answer.headers().get(HeaderNames.CONTENT_TYPE).get()).isEqualTo("text/plain; charset=UTF-8");
        String body = new String(answer.entity().orElseThrow(), StandardCharsets.UTF_8);
        assertThat(body)
                .startsWith(text)
                .endsWith("\n")
                .doesNotContain("helidon")
                .doesNotContain("Endpoint");
    }
}
