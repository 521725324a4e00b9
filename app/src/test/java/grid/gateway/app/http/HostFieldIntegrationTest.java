package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The request's {@code Host} as both listeners read it (RFC 9112 §3.2, RFC 3986 §3.2.2), on real sockets: each value
 * is served or refused alike on the client listener ({@code GET /v1/models}, which the gateway answers itself) and the
 * admin listener ({@code GET /health/live}). A refusal is 400, the connection closed.
 */
class HostFieldIntegrationTest extends BehindAFreshGateway {
    private int status(int port, String path, String fields) {
        try (RawHttp client = new RawHttp(port)) {
            return client.send("GET " + path + " HTTP/1.1\r\n" + fields.replace("\\r\\n", "\r\n") + "\r\n")
                    .readResponses(1)
                    .status();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "a name|Host: gw.example\\r\\n|200",
                "a name and a port|Host: gw.example:8080\\r\\n|200",
                "a port with leading zeros|Host: gw:0080\\r\\n|200",
                "an IPv4 address and a port|Host: 10.0.0.7:9090\\r\\n|200",
                "an IP literal and a port|Host: [::1]:9090\\r\\n|200",
                "an IP literal|Host: [fe80::1]\\r\\n|200",
                "a percent-encoded name|Host: g%41w\\r\\n|200",
                "no Host|Accept: */*\\r\\n|400",
                "an empty Host|Host: \\r\\n|400",
                "two Host fields|Host: a\\r\\nHost: b\\r\\n|400",
                "a space|Host: a b\\r\\n|400",
                "a path|Host: gw/x\\r\\n|400",
                "user info|Host: u@gw:9090\\r\\n|400",
                "IPv6 without brackets|Host: ::1\\r\\n|400",
                "an unclosed IP literal|Host: [::1\\r\\n|400",
                "two ports|Host: gw:80:80\\r\\n|400",
                "a negative port|Host: gw:-1\\r\\n|400",
                "a port with a plus sign|Host: gw:+80\\r\\n|400",
                "a port of letters|Host: gw:http\\r\\n|400",
                "an IP literal with a signed port|Host: [::1]:+80\\r\\n|400",
                "an empty port (docs/decisions.md)|Host: gw:\\r\\n|400",
            })
    void bothListeners_serveOrRefuseAHostAlike(String name, String fields, int status) {
        int client = status(gateway.server.port(), "/v1/models", fields);
        int admin = status(gateway.server.adminPort(), "/health/live", fields);

        assertThat(client).as("client listener, " + name).isEqualTo(status);
        assertThat(admin).as("admin listener, " + name).isEqualTo(status);
    }

    @Test
    void aSignedPort_onTheClientListener_isRefusedInTheApisShape_closed_logged() {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = client.send(
                            "POST /v1/messages HTTP/1.1\r\nHost: gw:-1\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: 2\r\n\r\n{}")
                    .read(200);

            assertThat(reply.status()).isEqualTo(400);
            assertThat(reply.body()).contains("\"type\":\"error\"");
            assertThat(reply.closed()).isTrue();
        }
        assertThat(gateway.accessLog.next().getInt("status")).isEqualTo(400);
        assertThat(engine.requests()).isEmpty();
    }
}
