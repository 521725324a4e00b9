package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.RefusingPort;
import grid.gateway.enginesim.EngineSimulator;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request sent to the next cluster after a connect failure (design.md §6: two tries in all) is still the request it
 * was: a new conversation stays on the local site when another of its clusters admits, and the access line says how
 * affinity decided for it as {@code grid_route_prefix_affinity_total} counted it (the first decision: the retry is no
 * second one), so the two agree.
 */
class ConnectRetryAccountingIntegrationTest {
    @TempDir
    Path dir;

    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        gateway.close();
    }

    /**
     * east-a refuses connections, east-b answers (both serve demo-model), and so does west-c, which serves another
     * model; the gateway's site is east.
     */
    private void start(EngineSimulator eastB, EngineSimulator westC) {
        String sites = GatewayHarness.oneSite(RefusingPort.shared().url(), eastB.url()) + """
                  - name: west
                    clusters:
                      - name: west-c
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [other-model]
                """.formatted(westC.url());
        gateway = new GatewayHarness(dir, GatewayHarness.config("", sites), eastB, westC);
    }

    @Test
    void newConversationAfterAConnectFailure_staysOnTheLocalSite_noAffinityLogged() {
        start(GatewayHarness.engine("east-b"), GatewayHarness.engine("west-c"));

        for (int i = 0; i < 12; i++) {
            assertThat(gateway.post("/v1/conversations", "{}").statusCode()).isEqualTo(200);
            JsonObject line = gateway.accessLog.next();
            assertThat(line.getString("cluster")).as("line %s", line).isEqualTo("east-b");
            assertThat(line.get("affinity")).as("line %s", line).isEqualTo(JsonValue.NULL);
        }
        // The local site's first choice was the refusing east-a at least once (then ejected after three).
        assertThat(new Books(gateway.metrics())
                        .sum("grid_upstream_errors_total", "cluster", "east/east-a", "kind", "connect"))
                .isPositive();
        assertThat(gateway.metric("grid_route_prefix_affinity_total", "outcome=\"unkeyed\""))
                .isZero();
    }

    @Test
    void requestRetriedAfterAConnectFailure_linesAffinityIsTheOneCounted() {
        start(GatewayHarness.engine("east-b"), GatewayHarness.engine("west-c"));
        Map<String, Integer> logged = new HashMap<>();
        String prompt = "a prompt long enough for block keys ".repeat(40);

        for (int i = 0; i < 12; i++) {
            // Prompts that share no prefix: each request a miss between east-a and east-b (ties at random); after
            // east-a's connect failure east-b is the one candidate left.
            String chat =
                    "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + i + prompt + "\"}]}";
            assertThat(gateway.post("/v1/chat/completions", chat).statusCode()).isEqualTo(200);
            JsonObject line = gateway.accessLog.next();
            if (line.get("affinity") != JsonValue.NULL) {
                logged.merge(line.getString("affinity"), 1, Integer::sum);
            }
        }

        assertThat(new Books(gateway.metrics())
                        .sum("grid_upstream_errors_total", "cluster", "east/east-a", "kind", "connect"))
                .isPositive();
        String metrics = gateway.metrics();
        for (String outcome : new String[] {"hit", "load", "miss", "explore", "unkeyed"}) {
            assertThat(logged.getOrDefault(outcome, 0))
                    .as("lines with affinity %s against the counter", outcome)
                    .isEqualTo((int) GatewayHarness.metric(
                            metrics, "grid_route_prefix_affinity_total", "outcome=\"" + outcome + "\""));
        }
    }
}
