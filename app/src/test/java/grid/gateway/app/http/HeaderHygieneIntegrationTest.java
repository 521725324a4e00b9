package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * What crosses the gateway in each direction, on real sockets (RFC 9110 §7.6): a raw client's fields as the engine
 * reads them, and a scripted engine's fields as the client reads them. Hop-by-hop fields (the fixed list and every
 * field a {@code Connection} field names, however it is written) never cross; the fields the gateway owns ({@code Host},
 * {@code Content-Length}, {@code X-Request-Id}, {@code X-Forwarded-For}) reach each side once, with the gateway's
 * value; every other field crosses unchanged.
 */
class HeaderHygieneIntegrationTest extends BehindAFreshGateway {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    /** The fields of a head, one string per field line, as written. */
    static List<String> fields(String head) {
        String[] lines = head.split("\r\n");
        List<String> fields = new ArrayList<>();
        for (int i = 1; i < lines.length && !lines[i].isEmpty(); i++) {
            fields.add(lines[i]);
        }
        return fields;
    }

    /** The values of every field line named {@code name} (any case), in order. */
    static List<String> values(String head, String name) {
        List<String> values = new ArrayList<>();
        for (String field : fields(head)) {
            int colon = field.indexOf(':');
            if (field.substring(0, colon).equalsIgnoreCase(name)) {
                values.add(field.substring(colon + 1).strip());
            }
        }
        return values;
    }

    /** The lower-case names of a head's fields. */
    static List<String> names(String head) {
        return fields(head).stream()
                .map(f -> f.substring(0, f.indexOf(':')).toLowerCase(Locale.ROOT))
                .toList();
    }

    private String post(String extraFields) throws InterruptedException {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw.example\r\n" + extraFields
                            + "Content-Type: application/json\r\nContent-Length: " + CHAT.length() + "\r\n\r\n"
                            + CHAT)
                    .readResponses(1);
            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        }
        return engine.take().head;
    }

    @Test
    void clientHopByHopFields_inEverySpelling_neverReachTheEngine_endToEndOnesDo() throws InterruptedException {
        String head = post("Connection: keep-alive, X-Hop-A ,\tx-hop-b\r\n"
                + "CONNECTION: TE,  Upgrade , X-HOP-C\r\n"
                + "connection: ,,x-hop-d,\r\n"
                + "X-Hop-A: 1\r\nx-hop-b: 2\r\nX-Hop-C: 3\r\nX-HOP-D: 4\r\n"
                + "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\nTrailer: X-T\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\nProxy-Authorization: Basic Zm9vOmJhcg==\r\n"
                + "Authorization: Bearer sk-test\r\nx-api-key: k\r\nX-Custom: kept\r\nAccept: application/json\r\n");

        assertThat(names(head))
                .doesNotContain(
                        "x-hop-a",
                        "x-hop-b",
                        "x-hop-c",
                        "x-hop-d",
                        "keep-alive",
                        "proxy-connection",
                        "te",
                        "trailer",
                        "upgrade",
                        "http2-settings",
                        "proxy-authorization",
                        "transfer-encoding");
        assertThat(values(head, "Connection")).containsExactly("keep-alive");
        assertThat(values(head, "Authorization")).containsExactly("Bearer sk-test");
        assertThat(values(head, "x-api-key")).containsExactly("k");
        assertThat(values(head, "X-Custom")).containsExactly("kept");
        assertThat(values(head, "Accept")).containsExactly("application/json");
        assertThat(values(head, "Content-Type")).containsExactly("application/json");
    }

    @Test
    void fieldsTheGatewayOwns_reachTheEngineOnce_withTheGatewaysValues() throws InterruptedException {
        String head = post("X-Request-Id: client-id-1\r\n");

        assertThat(values(head, "Host")).containsExactly(engine.url().replaceFirst("^https?://", ""));
        assertThat(values(head, "Content-Length")).containsExactly(Integer.toString(CHAT.length()));
        assertThat(values(head, "X-Request-Id")).containsExactly("client-id-1");
        assertThat(values(head, "X-Forwarded-For")).containsExactly("127.0.0.1");
    }

    @Test
    void xForwardedFor_inSeveralFields_isOneListInOrder_theClientsAddressLast() throws InterruptedException {
        // RFC 9110 §5.3: several field lines of one name are one list, in order. A proxy in front that adds its own
        // field line (HAProxy's option forwardfor) rather than appending must not lose what it asserted.
        String head = post("X-Forwarded-For: 203.0.113.9\r\nx-forwarded-for: 198.51.100.7, 192.0.2.4\r\n");

        assertThat(values(head, "X-Forwarded-For")).containsExactly("203.0.113.9, 198.51.100.7, 192.0.2.4, 127.0.0.1");
    }

    @Test
    void xForwardedFor_namedInConnection_isTheClientsHopOnly_theEngineGetsTheClientsAddress()
            throws InterruptedException {
        String head = post("Connection: X-Forwarded-For\r\nX-Forwarded-For: 203.0.113.9\r\n");

        assertThat(values(head, "X-Forwarded-For")).containsExactly("127.0.0.1");
    }

    @Test
    void aHundredHarmlessFields_allReachTheEngine() throws InterruptedException {
        // The order of fields of different names carries nothing (RFC 9110 §5.3): only each field's presence is held.
        StringBuilder many = new StringBuilder();
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            many.append("X-Field-").append(i).append(": v").append(i).append("\r\n");
            sent.add("X-Field-" + i + ": v" + i);
        }

        String head = post(many.toString());

        assertThat(fields(head).stream().filter(f -> f.startsWith("X-Field-")).toList())
                .containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void engineHopByHopFields_andItsOwnRequestId_neverReachTheClient_endToEndOnesDo() {
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + "Connection: keep-alive, X-Engine-Hop\r\nCONNECTION: x-other-hop , Content-Language\r\n"
                + "X-Engine-Hop: 1\r\nx-other-hop: 2\r\nContent-Language: en\r\n"
                + "Keep-Alive: timeout=5, max=100\r\nProxy-Connection: keep-alive\r\n"
                + "Proxy-Authenticate: Basic realm=\"engine\"\r\nTrailer: X-T\r\nUpgrade: h2c\r\nTE: trailers\r\n"
                + "X-Request-Id: forged-by-the-engine\r\nx-request-id: forged-again\r\n"
                + "X-Custom: kept\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 2\r\n\r\n{}");
        String head;
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = client.send("POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\n"
                            + "X-Request-Id: the-clients-id\r\nContent-Type: application/json\r\nContent-Length: "
                            + CHAT.length() + "\r\n\r\n" + CHAT)
                    .readResponses(1);
            assertThat(reply.status()).as(reply.text()).isEqualTo(200);
            assertThat(reply.body()).isEqualTo("{}");
            head = reply.text().substring(0, reply.text().indexOf("\r\n\r\n") + 2);
        }

        assertThat(names(head))
                .doesNotContain(
                        "x-engine-hop",
                        "x-other-hop",
                        "content-language",
                        "keep-alive",
                        "proxy-connection",
                        "proxy-authenticate",
                        "trailer",
                        "upgrade",
                        "te",
                        "transfer-encoding");
        assertThat(values(head, "X-Request-Id")).containsExactly("the-clients-id");
        assertThat(values(head, "Connection")).allSatisfy(v -> assertThat(v).isEqualToIgnoringCase("keep-alive"));
        assertThat(values(head, "Content-Length")).containsExactly("2");
        assertThat(values(head, "X-Custom")).containsExactly("kept");
        assertThat(values(head, "Set-Cookie")).containsExactly("a=1", "b=2");
    }
}
