package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A request target in absolute form, on real sockets (RFC 9112 §3.2.2: a server must accept it, and an origin server
 * take the target's authority rather than {@code Host}): served on both listeners as its origin form, forwarded to
 * the engine in origin form with the cluster's own {@code Host}; a target whose authority is none (user info, a path
 * character, a signed port) stays a path the gateway does not serve.
 */
class AbsoluteFormIntegrationTest extends BehindAFreshGateway {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "http://gw/v1/chat/completions?trace=1, /v1/chat/completions?trace=1",
        "HTTPS://other.example:8443/v1/chat/completions, /v1/chat/completions",
        "http://[::1]:9/v1/chat/completions, /v1/chat/completions"
    })
    void absoluteForm_servedAsItsOriginForm_forwardedInOriginForm_withTheClustersHost(String target, String origin)
            throws InterruptedException {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = client.send("POST " + target + " HTTP/1.1\r\nHost: gw.example\r\n"
                            + "Content-Type: application/json\r\nContent-Length: " + CHAT.length() + "\r\n\r\n" + CHAT)
                    .readResponses(1);
            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        }
        String head = engine.take().head;

        assertThat(head).startsWith("POST " + origin + " HTTP/1.1\r\n");
        assertThat(HeaderHygieneIntegrationTest.values(head, "Host"))
                .containsExactly(engine.url().replaceFirst("^https?://", ""));
        assertThat(gateway.accessLog.next().getString("path")).isEqualTo("/v1/chat/completions");
    }

    @Test
    void absoluteForm_onTheAdminListener_servedAsItsOriginForm() {
        try (RawHttp client = new RawHttp(gateway.server.adminPort())) {
            RawHttp.Reply reply = client.send("GET http://gw:9090/health/live HTTP/1.1\r\nHost: gw:9090\r\n\r\n")
                    .readResponses(1);

            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"http://u@gw/v1/models", "http://gw:-1/v1/models", "http:///v1/models", "ftp://gw/v1/models"})
    void absoluteFormWhoseAuthorityIsNone_notServed_neverForwarded(String target) {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = client.send("GET " + target + " HTTP/1.1\r\nHost: gw\r\n\r\n")
                    .readResponses(1);

            assertThat(reply.status()).as(reply.text()).isEqualTo(404);
        }
        assertThat(engine.requests()).isEmpty();
    }
}
