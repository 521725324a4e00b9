package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A request's model is bounded at the edge as a configured model's name is (253 characters): a longer one, up to the
 * body limit, is a model no cluster serves (404 in the API's shape, never forwarded), and what carries it on (a route
 * explanation, a trace) carries its first 253 characters and {@code …}, never the whole. A configured name of exactly
 * 253 characters is served, and that name with one more character is not mistaken for it.
 */
class RequestModelBoundIntegrationTest {
    private static final String LONGEST = "m".repeat(253);
    private static final String HUGE = "m".repeat(1 << 20);

    @TempDir
    static Path dir;

    private static EngineSimulator engine;
    private static GatewayHarness gateway;

    @BeforeAll
    static void start() {
        engine = EngineSimulator.start(GatewayHarness.engineSettings("east-a")
                .model("demo-model")
                .model(LONGEST)
                .build());
        String sites = GatewayHarness.oneEngine(engine.url()).replace("[demo-model]", "[demo-model, " + LONGEST + "]");
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config(GatewayHarness.routeExplain(dir), "", sites)
                        .replace("max_body_bytes: 4096", "max_body_bytes: 4194304"));
    }

    @AfterAll
    static void stop() {
        gateway.close();
        engine.close();
    }

    private static String chat(String model) {
        return "{\"model\":\"" + model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    private static String messages(String model) {
        return "{\"model\":\"" + model + "\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    }

    /**
     * The requests the engine recorded before {@code barrier}, a served request sent now: every request sent before
     * it has been answered, so any that was forwarded was recorded before the barrier was.
     */
    private static List<String> forwardedBefore(String barrier) throws InterruptedException {
        assertThat(gateway.post("/v1/chat/completions", chat(barrier)).statusCode())
                .isEqualTo(200);
        List<String> before = new ArrayList<>();
        while (true) {
            Optional<RecordedRequest> seen = engine.takeRequest(GatewayHarness.DEADLINE);
            assertThat(seen).as("the barrier reached the engine").isPresent();
            if (seen.get().body().contains("\"" + barrier + "\"")) {
                return before;
            }
            before.add(seen.get().body());
        }
    }

    @Test
    void aModelOfOneMebibyte_404InTheApisShape_neverForwarded() throws InterruptedException {
        HttpResponse<String> openAi = gateway.post("/v1/chat/completions", chat(HUGE));
        HttpResponse<String> anthropic = gateway.post("/v1/messages", messages(HUGE));

        assertThat(openAi.statusCode()).isEqualTo(404);
        assertThat(openAi.body()).startsWith("{\"error\":{").contains("\"code\":\"model_not_found\"");
        assertThat(anthropic.statusCode()).isEqualTo(404);
        assertThat(anthropic.body()).startsWith("{\"type\":\"error\"").contains("not_found_error");
        assertThat(forwardedBefore("demo-model")).isEmpty();
    }

    @Test
    void aConfiguredNameOfTheLongestLength_served_andOneCharacterMore_notMistakenForIt() throws InterruptedException {
        assertThat(gateway.post("/v1/chat/completions", chat(LONGEST)).statusCode())
                .isEqualTo(200);
        assertThat(GatewayHarness.take(engine).body()).contains("\"" + LONGEST + "\"");

        HttpResponse<String> longer = gateway.post("/v1/chat/completions", chat(LONGEST + "m"));

        assertThat(longer.statusCode()).isEqualTo(404);
        assertThat(forwardedBefore("demo-model")).isEmpty();
    }

    @Test
    void routeExplain_aModelOfOneMebibyte_shownAsItsFirst253CharactersAndAnEllipsis() {
        HttpResponse<String> answer = gateway.send(
                gateway.explainRequest("?path=/v1/chat/completions", chat(HUGE)).build());

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body().length()).as("the explanation's length").isLessThan(4096);
        JsonObject explanation =
                Json.createReader(new StringReader(answer.body())).readObject();
        assertThat(explanation.getString("model")).isEqualTo(LONGEST + "…");
        assertThat(explanation.getJsonObject("answer").getInt("status")).isEqualTo(404);
        assertThat(explanation.getJsonObject("answer").getString("error")).isEqualTo("model_not_found");
    }
}
