package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.observe.StrictExposition;
import grid.gateway.enginesim.EngineSimulator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every answer of the admin listener is the gateway's own, for each method × path × query × {@code Accept} × HTTP
 * version a tool or a hostile client can send it, and for framings Helidon's parser refuses: it comes whole within
 * seconds, framed by {@code Content-Length}; it is never a 5xx (the harness's gateway is ready); every answer but one to
 * HEAD has content and a content type an operator can read (a page of metrics in its exposition type, every other
 * answer in text or the explainer's JSON), and none names Helidon, a Java exception or a stack frame. Helidon's metrics
 * page answered {@code /metrics?name=typo}, {@code ?scope=nosuch}, {@code /metrics/base} and
 * {@code /metrics/application/nosuch} 404 with no content or type, and {@code /metrics/nosuch} 404
 * {@code Endpoint not found} typed as a Prometheus page.
 */
class AdminAnswersTableIntegrationTest {
    private static final List<String> METHODS =
            List.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "CONNECT", "BREW", "get");
    private static final List<String> TARGETS = List.of(
            "/metrics",
            "/metrics/",
            "/metrics//",
            "/metrics/application",
            "/metrics/application/",
            "/metrics//application",
            "/metrics/vendor",
            "/metrics/base",
            "/metrics/Application",
            "/metrics/nosuch",
            "/metrics/a/b/c",
            "/metrics/application/grid_requests_in_flight",
            "/metrics/application/grid_requests_in_flight/",
            "/metrics/application/nosuch",
            "/metrics/vendor/requests_count",
            "/metrics?name=typo",
            "/metrics?name=",
            "/metrics?scope=nosuch",
            "/metrics?scope=base",
            "/metrics?scope=",
            "/metrics?scope=application&name=nosuch",
            "/metrics?name=grid_requests_in_flight&name=typo",
            "/metrics?name=%1B%5B31m",
            "/metrics?foo=bar&format=json",
            "/metrics/vendor?name=typo",
            "/metrics;x=1",
            "/metrics/%2e%2e/health/live",
            "/health/live",
            "/health/live?t=1700000000",
            "/health/ready?full",
            "/health",
            "/health/",
            "/health/ready/",
            "/route/explain",
            "/route/explain?path=/v1/models",
            "/",
            "*",
            "/observe/metrics",
            "/observe/health",
            "/favicon.ico",
            "http://gw/metrics?name=typo");
    private static final List<Optional<String>> ACCEPTS = List.of(
            Optional.empty(),
            Optional.of("application/json"),
            Optional.of("application/openmetrics-text; version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            Optional.of("text/html"));
    /** Framings and versions Helidon's parser or the gateway's readers decide, with no method × path product. */
    private static final List<String> RAW = List.of(
            "GET /metrics HTTP/2.0\r\nHost: gw\r\n\r\n",
            "GET /health/live HTTP/1.2\r\nHost: gw\r\n\r\n",
            "GET /health/live HTTP/0.9\r\n\r\n",
            "GET /health/live\r\n\r\n",
            "GET /health/live http/1.1\r\nHost: gw\r\n\r\n",
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost: gw\r\nConnection: Upgrade, HTTP2-Settings, close\r\nUpgrade: h2c\r\n"
                    + "HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n",
            "GET /health/live HTTP/1.1\r\nHost: gw\r\nConnection: Upgrade, close\r\nUpgrade: websocket\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nAccept: text/plain;q=abc\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nAccept: ;;;,,,\r\n\r\n",
            "GET /metrics?%zz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n",
            "GET /metrics%zz HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n",
            "GET /metrics HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nExpect: 100-continue\r\n\r\n",
            "GET /metrics?name=typo HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
            "POST /metrics?name=typo HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello",
            "GET /health/ready HTTP/1.1\r\nHost: gw\r\nHost: gw\r\n\r\n",
            "GET /health/ready HTTP/1.1\r\n\r\n",
            "CONNECT gw:9090 HTTP/1.1\r\nHost: gw:9090\r\nConnection: close\r\n\r\n",
            "GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: gw\r\n\r\n");

    @TempDir
    Path dir;

    private final EngineSimulator engine = GatewayHarness.engine("east-a");
    private GatewayHarness gateway;

    @BeforeEach
    void start() {
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(GatewayHarness.routeExplain(dir), "", GatewayHarness.oneEngine(engine.url())),
                engine);
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    @Test
    void everyMethodPathQueryAcceptAndVersion_aDeliberateAnswer() {
        List<String> failures = new ArrayList<>();
        for (String target : TARGETS) {
            for (String method : METHODS) {
                for (Optional<String> accept : ACCEPTS) {
                    for (boolean http10 : List.of(false, true)) {
                        String request = method + " " + target
                                + (http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\nHost: gw\r\n")
                                + accept.map(a -> "Accept: " + a + "\r\n").orElse("")
                                + "Connection: close\r\n\r\n";
                        check(request, method.equals("HEAD"), failures);
                    }
                }
            }
        }
        for (String request : RAW) {
            check(request, false, failures);
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void aSelectionThatMatchesNothing_404_namingIt() {
        Answer typo = exchange("GET /metrics?name=typo HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n");
        Answer scope = exchange("GET /metrics/base HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n");
        Answer path = exchange("GET /metrics/nosuch HTTP/1.1\r\nHost: gw\r\nConnection: close\r\n\r\n");
        Answer some = exchange("GET /metrics?name=grid_requests_in_flight&name=typo&foo=1 HTTP/1.1\r\nHost: gw\r\n"
                + "Connection: close\r\n\r\n");

        assertThat(typo.status()).isEqualTo(404);
        assertThat(typo.text()).startsWith("not found: no meter matches name \"typo\"");
        assertThat(typo.text()).contains("without the _total");
        assertThat(scope.status()).isEqualTo(404);
        assertThat(scope.text()).startsWith("not found: no meter matches scope \"base\" (scopes with meters: ");
        assertThat(path.status()).isEqualTo(404);
        assertThat(path.text()).startsWith("not found: \"/metrics/nosuch\": /metrics serves");
        // A selection is served; a parameter the page does not take is ignored.
        assertThat(some.status()).isEqualTo(200);
        assertThat(StrictExposition.prometheusText(some.body()).types()).containsOnlyKeys("grid_requests_in_flight");
    }

    @Test
    void a404OfThePage_keepsItsConnection_forTheNextRequest() {
        List<PipelinedAnswers.Answer> answers = PipelinedAnswers.exchange(
                gateway.server.adminPort(),
                List.of("GET", "HEAD", "GET", "GET"),
                List.of("/metrics?name=typo", "/metrics/base", "/metrics/nosuch", "/health/live"));

        assertThat(answers.subList(0, 3)).allSatisfy(a -> assertThat(a.status()).isEqualTo(404));
        assertThat(answers.get(1).body()).isEmpty();
        assertThat(answers.get(3).status()).isEqualTo(200);
        assertThat(answers.get(3).body()).isEqualTo("live\n");
    }

    private void check(String request, boolean head, List<String> failures) {
        Answer answer = exchange(request);
        String problem = problem(answer, head);
        if (problem != null) {
            String shown = request.length() > 120 ? request.substring(0, 120) + "…" : request;
            failures.add(shown.replace("\r\n", "⏎") + " -> " + problem + ": "
                    + answer.head().replace("\r\n", "⏎")
                    + answer.text().substring(0, Math.min(200, answer.text().length())));
        }
    }

    /** What is wrong with {@code answer} as one of the admin listener's; null when nothing is. */
    private static String problem(Answer answer, boolean head) {
        if (answer.timedOut()) {
            return "no whole answer within 5 s";
        }
        if (answer.head().isEmpty()) {
            return "no answer";
        }
        if (answer.status() >= 500 && answer.status() != 505) {
            return "a server error";
        }
        Optional<String> type = answer.header("Content-Type");
        Optional<String> length = answer.header("Content-Length");
        if (type.isEmpty()) {
            return "no content type";
        }
        if (length.isEmpty() || answer.header("Transfer-Encoding").isPresent()) {
            return "not framed by Content-Length";
        }
        if (head ? answer.body().length != 0 : Long.parseLong(length.get()) != answer.body().length) {
            return "content not as framed";
        }
        if (!head && answer.body().length == 0) {
            return "no content";
        }
        String all = (answer.head() + answer.text()).toLowerCase(Locale.ROOT);
        if (all.contains("helidon") || all.contains("exception") || all.contains("\tat ")) {
            return "names Helidon or an exception";
        }
        if (answer.header("Server").isPresent() || answer.header("X-Powered-By").isPresent()) {
            return "a banner";
        }
        boolean page = type.get().startsWith("text/plain; version=0.0.4")
                || type.get().startsWith("application/openmetrics-text");
        if (page && answer.status() != 200) {
            return "an exposition type on an answer that is no page";
        }
        if (page && !head) {
            return exposition(answer, type.get());
        }
        if (!page && !(type.get().startsWith("text/plain") || type.get().startsWith("application/json"))) {
            return "neither text nor JSON";
        }
        return null;
    }

    private static String exposition(Answer answer, String type) {
        try {
            if (type.startsWith("application/openmetrics-text")) {
                StrictExposition.openMetrics(answer.body());
            } else {
                StrictExposition.prometheusText(answer.body());
            }
            return null;
        } catch (AssertionError | RuntimeException e) {
            return "a page a strict reader refuses: " + e.getMessage();
        }
    }

    /** One answer, read to the end of its connection (every request here asks to close it, or is HTTP/1.0). */
    private record Answer(String head, byte[] body, boolean timedOut) {
        int status() {
            return Integer.parseInt(head.substring(9, 12));
        }

        Optional<String> header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                    return Optional.of(line.substring(colon + 1).strip());
                }
            }
            return Optional.empty();
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private Answer exchange(String request) {
        return exchange(gateway.server.adminPort(), request);
    }

    private static Answer exchange(int port, String request) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        boolean timedOut = false;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                all.write(buffer, 0, n);
            }
        } catch (SocketTimeoutException e) {
            timedOut = true;
        } catch (IOException e) {
            // A reset after the answer (the server closed with unread bytes): what came is the answer.
        }
        byte[] bytes = all.toByteArray();
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return new Answer("", new byte[0], timedOut);
        }
        return new Answer(text.substring(0, end + 2), Arrays.copyOfRange(bytes, end + 4, bytes.length), timedOut);
    }
}
