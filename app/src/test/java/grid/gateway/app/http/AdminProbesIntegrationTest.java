package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.observe.AdminExchange;
import grid.gateway.app.observe.StrictExposition;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Health probes as operators' tools send them to the admin port, each answer read as the tool reads it, to the end of
 * the connection: HAProxy's {@code option httpchk} (HTTP/1.0, no {@code Host}, {@code OPTIONS /} by default),
 * keepalived and simple load balancers' {@code GET … HTTP/1.0}, the kubelet's HTTP/1.1 {@code Connection: close}
 * probe, {@code curl -I}. An HTTP/1.0 request is served on the admin port (never on the client port, which answers
 * 505), its answer framed by {@code Content-Length} and its connection closed after it, whatever was pipelined behind
 * it; HTTP/1.1 still needs one {@code Host}.
 */
class AdminProbesIntegrationTest {
    @TempDir
    Path dir;

    private final EngineSimulator engine = GatewayHarness.engine("east-a");
    private GatewayHarness gateway;

    @BeforeEach
    void start() {
        gateway = new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())), engine);
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    private AdminExchange admin(String request) {
        return AdminExchange.send(gateway.server.adminPort(), request);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "HAProxy httpchk GET|GET /health/ready HTTP/1.0\\r\\n\\r\\n|200|ready",
                "a 1.0 probe with Host and keep-alive|GET /health/live HTTP/1.0\\r\\nHost: 10.0.0.7:9090\\r\\n"
                        + "Connection: keep-alive\\r\\nUser-Agent: keepalived\\r\\n\\r\\n|200|live",
                "a query string|GET /health/ready?full HTTP/1.0\\r\\n\\r\\n|200|ready",
                "a 1.0 probe with a request pipelined behind it|GET /health/ready HTTP/1.0\\r\\n\\r\\n"
                        + "GET /health/live HTTP/1.1\\r\\nHost: gw\\r\\n\\r\\n|200|ready",
                "HAProxy's default httpchk: OPTIONS /|OPTIONS / HTTP/1.0\\r\\n\\r\\n|404|not found: ",
                "a trailing slash: the path is exact|GET /health/ready/ HTTP/1.1\\r\\nHost: gw\\r\\n"
                        + "Connection: close\\r\\n\\r\\n|404|not found: ",
                "OPTIONS on a page|OPTIONS /health/ready HTTP/1.0\\r\\n\\r\\n|405|method not allowed: ",
                "kubelet|GET /health/ready HTTP/1.1\\r\\nHost: 10.0.0.7:9090\\r\\nUser-Agent: kube-probe/1.31\\r\\n"
                        + "Accept: */*\\r\\nConnection: close\\r\\n\\r\\n|200|ready"
            })
    void probe_answeredWhole_byContentLength_thenClosed(String tool, String request, int status, String text) {
        AdminExchange answer = admin(request.replace("\\r\\n", "\r\n"));

        assertThat(answer.status()).as(tool).isEqualTo(status);
        assertThat(answer.text()).as(tool).startsWith(text);
        // The whole rest of the connection is the one answer's content: nothing after it, no chunked coding.
        assertThat(answer.framedByLength()).as(tool + ": " + answer.head()).isTrue();
        assertThat(answer.saysClose()).as(tool).isTrue();
    }

    @Test
    void headProbeInHttp10_theHeadOfItsGet_noContent_closed() {
        AdminExchange get = admin("GET /health/live HTTP/1.0\r\n\r\n");
        AdminExchange head = admin("HEAD /health/live HTTP/1.0\r\n\r\n");

        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("Content-Length")).isEqualTo(get.header("Content-Length"));
        assertThat(head.body()).isEmpty();
        assertThat(head.saysClose()).isTrue();
    }

    @Test
    void metricsInHttp10_aWholeTextPage_closed() {
        AdminExchange page = admin("GET /metrics HTTP/1.0\r\nUser-Agent: check_http/v2.3.3\r\n\r\n");

        assertThat(page.status()).isEqualTo(200);
        assertThat(page.framedByLength()).as(page.head()).isTrue();
        assertThat(page.saysClose()).isTrue();
        assertThat(StrictExposition.prometheusText(page.body()).named("grid_requests_in_flight"))
                .isNotEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "HTTP/1.1 without Host|GET /health/ready HTTP/1.1\\r\\n\\r\\n",
                "HTTP/1.1 with an empty Host|GET /health/ready HTTP/1.1\\r\\nHost: \\r\\n\\r\\n",
                "HTTP/1.0 with two Host fields|GET /health/ready HTTP/1.0\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n",
                "a Host with a space|GET /health/ready HTTP/1.1\\r\\nHost: a b\\r\\n\\r\\n",
                "a Host with a path|GET /health/ready HTTP/1.1\\r\\nHost: gw/x\\r\\n\\r\\n",
                "a Host with user info|GET /health/ready HTTP/1.1\\r\\nHost: u@gw:9090\\r\\n\\r\\n",
                "an IPv6 Host without brackets|GET /health/ready HTTP/1.1\\r\\nHost: ::1\\r\\n\\r\\n",
                "an unclosed IP literal|GET /health/ready HTTP/1.1\\r\\nHost: [::1\\r\\n\\r\\n",
                "HTTP/1.0 with a Host with a space|GET /health/ready HTTP/1.0\\r\\nHost: a b\\r\\n\\r\\n",
                "HTTP/1.0 with Transfer-Encoding|GET /health/ready HTTP/1.0\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n"
                        + "0\\r\\n\\r\\n"
            })
    void headTheAdminPortRefuses_400_closed(String name, String request) {
        AdminExchange answer = admin(request.replace("\\r\\n", "\r\n"));

        assertThat(answer.status()).as(name).isEqualTo(400);
        assertThat(answer.framedByLength()).as(name).isTrue();
        assertThat(answer.saysClose()).as(name).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "a name and a port|10.0.0.7:9090",
                "a name|gateway.internal",
                "an IP literal and a port|[::1]:9090",
                "an IP literal|[fe80::1]"
            })
    void hostAndOptionalPort_served(String name, String host) {
        AdminExchange answer = admin("GET /health/live HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");

        assertThat(answer.status()).as(name).isEqualTo(200);
    }

    @Test
    void http10OnTheClientPort_still505() {
        try (RawHttp client = new RawHttp(gateway.server.port())) {
            RawHttp.Reply reply = client.send("GET /v1/models HTTP/1.0\r\n\r\n").readResponses(1);
            assertThat(reply.status()).isEqualTo(505);
        }
    }
}
