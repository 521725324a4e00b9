package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin listener's path × method matrix, as operators' tools send it (kubelet, {@code curl -I}, load balancers'
 * HEAD and OPTIONS probes, a mistaken PUT): {@code /metrics} (each scope too), {@code /health/live} and
 * {@code /health/ready} answer GET, and HEAD as GET without content (RFC 9110 §9.3.2: the same status and
 * {@code Content-Length}); every other method on them is 405 with {@code Allow: GET, HEAD} in text, as the pages answer;
 * {@code /route/explain} is POST only (405 with {@code Allow: POST} in its OpenAI JSON shape); any other path is 404.
 * Each answer leaves the connection serving the next request: a readiness probe pipelined behind each.
 */
class AdminMethodsIntegrationTest {
    private static final List<String> METHODS =
            List.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "BREW");
    private static final List<String> PAGES =
            List.of("/metrics", "/metrics/application", "/health/live", "/health/ready");

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
    void everyAdminPathAndMethod_answeredAsItsPageDefines_headWithoutContent_connectionKept() {
        List<String> failures = new ArrayList<>();
        for (String path : List.of(
                "/metrics",
                "/metrics/application",
                "/health/live",
                "/health/ready",
                "/route/explain",
                "/",
                "/health",
                "/metricsx",
                "/observe/metrics")) {
            for (String method : METHODS) {
                if (path.equals("/route/explain") && method.equals("POST")) {
                    continue; // the explainer's own answers: RouteExplainIntegrationTest
                }
                List<PipelinedAnswers.Answer> answers = PipelinedAnswers.exchange(
                        gateway.server.adminPort(), List.of(method, "GET"), List.of(path, "/health/live"));
                PipelinedAnswers.Answer answer = answers.getFirst();
                if (!expected(path, method, answer)
                        || answers.get(1).status() != 200
                        || !answers.get(1).body().equals("live\n")) {
                    failures.add(method + " " + path + " -> " + answer.head() + answer.body() + " then "
                            + answers.get(1).head());
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void headOfAPage_theHeadOfItsGet_withoutContent() {
        for (String path : List.of("/health/live", "/health/ready")) {
            List<PipelinedAnswers.Answer> answers =
                    PipelinedAnswers.exchange(gateway.server.adminPort(), List.of("GET", "HEAD"), List.of(path, path));
            assertThat(answers.get(1).status()).isEqualTo(answers.get(0).status());
            assertThat(answers.get(1).header("Content-Length"))
                    .isEqualTo(answers.get(0).header("Content-Length"));
            assertThat(answers.get(1).header("Content-Type"))
                    .isEqualTo(answers.get(0).header("Content-Type"));
        }
    }

    private static boolean expected(String path, String method, PipelinedAnswers.Answer answer) {
        boolean head = method.equals("HEAD");
        if (head && !answer.body().isEmpty()) {
            return false;
        }
        if (PAGES.contains(path)) {
            if (method.equals("GET") || head) {
                return answer.status() == 200 && Integer.parseInt(answer.header("Content-Length")) > 0;
            }
            return answer.status() == 405
                    && "GET, HEAD".equals(answer.header("Allow"))
                    && answer.header("Content-Type").startsWith("text/plain")
                    && (head || answer.body().startsWith("method not allowed: "));
        }
        if (path.equals("/route/explain")) {
            return answer.status() == 405
                    && "POST".equals(answer.header("Allow"))
                    && "application/json".equals(answer.header("Content-Type"))
                    && (head || answer.body().contains("\"code\":\"method_not_allowed\""));
        }
        return answer.status() == 404
                && answer.header("Allow") == null
                && (head || answer.body().startsWith("not found: the admin port serves"));
    }
}
