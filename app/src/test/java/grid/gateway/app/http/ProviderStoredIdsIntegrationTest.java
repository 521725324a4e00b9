package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.enginesim.EngineSimulator;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider-role gateway passes no stored state, on real sockets: with {@code /v1/responses} among its allowed
 * paths (its default), a create is served, but a request that names a stored response or conversation in its body
 * (which would continue it, and so read it back) answers the unknown-id 404 and never reaches the engine; its own
 * tagged ids included. A consumer in front of the same engine pins the same request.
 */
class ProviderStoredIdsIntegrationTest {
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*\"(resp_[^\"]+)\"");

    @TempDir
    Path dir;

    private static String storedId(HttpResponse<String> created) {
        Matcher id = ID.matcher(created.body());
        assertThat(id.find()).as(created.body()).isTrue();
        return id.group(1);
    }

    @Test
    void provider_bodyNamingAStoredId_404_neverForwarded() throws InterruptedException {
        try (EngineSimulator engine = GatewayHarness.engine("west-a");
                GatewayHarness provider = new GatewayHarness(
                        dir, GatewayHarness.config("  role: provider", GatewayHarness.oneEngine(engine.url())))) {
            HttpResponse<String> created =
                    provider.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"a secret\"}");
            assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
            String id = storedId(created);
            GatewayHarness.take(engine);

            HttpResponse<String> continued = provider.post(
                    "/v1/responses",
                    "{\"model\":\"demo-model\",\"previous_response_id\":\"" + id + "\",\"input\":\"repeat it\"}");
            HttpResponse<String> conversation = provider.post(
                    "/v1/responses", "{\"model\":\"demo-model\",\"conversation\":\"conv_x\",\"input\":\"hi\"}");

            for (HttpResponse<String> refused : new HttpResponse[] {continued, conversation}) {
                assertThat(refused.statusCode()).as(refused.body()).isEqualTo(404);
                assertThat(refused.body()).contains("No stored response or conversation has that id.");
            }
            assertThat(engine.takeRequest(Duration.ZERO)).as("forwarded").isEmpty();
            assertThat(provider.metric("grid_requests_refused_total", "reason=\"stored_id_via_provider\""))
                    .isEqualTo(2);
            assertThat(provider.get("/v1/responses/" + id).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void consumer_theSameContinuation_isPinned() throws InterruptedException {
        try (EngineSimulator engine = GatewayHarness.engine("east-a");
                GatewayHarness consumer =
                        new GatewayHarness(dir, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())))) {
            String id = storedId(consumer.post("/v1/responses", "{\"model\":\"demo-model\",\"input\":\"hi\"}"));
            GatewayHarness.take(engine);

            HttpResponse<String> continued = consumer.post(
                    "/v1/responses",
                    "{\"model\":\"demo-model\",\"previous_response_id\":\"" + id + "\",\"input\":\"and then\"}");

            assertThat(continued.statusCode()).as(continued.body()).isEqualTo(200);
            assertThat(GatewayHarness.take(engine).body()).contains("\"previous_response_id\":\"resp_");
        }
    }
}
