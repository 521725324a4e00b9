package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConversationsApiTest {
    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        // vLLM has no Conversations API; the simulator serves it as an OpenAI addition.
        engine = EngineSettings.builder()
                .api(ApiSurface.VLLM.withOpenAiAdditions())
                .instant()
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void conversation_lifecycle_createGetUpdateItemsDelete() throws Exception {
        JsonObject created = SimHttp.json(http.post(
                "/v1/conversations",
                "{\"metadata\":{\"topic\":\"demo\"},\"items\":[{\"role\":\"user\",\"content\":\"first\"}]}"));
        String id = created.getString("id");
        assertThat(id).matches("conv_[0-9a-f]{48}");
        assertThat(created.getString("object")).isEqualTo("conversation");
        assertThat(created.getJsonNumber("created_at").longValue()).isPositive();
        assertThat(created.getJsonObject("metadata").getString("topic")).isEqualTo("demo");
        assertThat(SimHttp.json(http.get("/v1/conversations/" + id))).isEqualTo(created);

        JsonObject updated =
                SimHttp.json(http.post("/v1/conversations/" + id, "{\"metadata\":{\"topic\":\"changed\"}}"));
        assertThat(updated.getJsonObject("metadata").getString("topic")).isEqualTo("changed");

        JsonObject added = SimHttp.json(http.post(
                "/v1/conversations/" + id + "/items",
                "{\"items\":[{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"second\"},"
                        + "{\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":\"third\"}]}]}"));
        assertThat(added.getString("object")).isEqualTo("list");
        assertThat(added.getJsonArray("data")).hasSize(2);

        JsonObject newestFirst = SimHttp.json(http.get("/v1/conversations/" + id + "/items"));
        assertThat(texts(newestFirst)).containsExactly("third", "second", "first");
        JsonObject page = SimHttp.json(http.get("/v1/conversations/" + id + "/items?order=asc&limit=2"));
        assertThat(texts(page)).containsExactly("first", "second");
        assertThat(page.getBoolean("has_more")).isTrue();
        JsonObject rest = SimHttp.json(
                http.get("/v1/conversations/" + id + "/items?order=asc&after=" + page.getString("last_id")));
        assertThat(texts(rest)).containsExactly("third");
        assertThat(rest.getBoolean("has_more")).isFalse();

        String itemId = page.getString("first_id");
        assertThat(SimHttp.json(http.get("/v1/conversations/" + id + "/items/" + itemId))
                        .getString("id"))
                .isEqualTo(itemId);
        JsonObject parent = SimHttp.json(http.delete("/v1/conversations/" + id + "/items/" + itemId));
        assertThat(parent.getString("object")).isEqualTo("conversation");
        assertThat(http.get("/v1/conversations/" + id + "/items/" + itemId).statusCode())
                .isEqualTo(404);

        JsonObject deleted = SimHttp.json(http.delete("/v1/conversations/" + id));
        assertThat(deleted.getString("id")).isEqualTo(id);
        assertThat(deleted.getString("object")).isEqualTo("conversation.deleted");
        assertThat(deleted.getBoolean("deleted")).isTrue();
        assertThat(http.get("/v1/conversations/" + id).statusCode()).isEqualTo(404);
    }

    @Test
    void conversation_createWithoutBody_emptyMetadata() throws Exception {
        HttpResponse<String> response = http.send(http.request("/v1/conversations")
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(SimHttp.json(response).getJsonObject("metadata")).isEmpty();
    }

    @Test
    void conversation_unknown_404InOpenAiShape() throws Exception {
        HttpResponse<String> response = http.get("/v1/conversations/conv_missing/items");

        assertThat(response.statusCode()).isEqualTo(404);
        JsonObject error = SimHttp.json(response).getJsonObject("error");
        assertThat(error.getString("message")).isEqualTo("Conversation with id 'conv_missing' not found.");
        assertThat(error.getString("type")).isEqualTo("invalid_request_error");
    }

    @Test
    void conversation_moreThanTwentyItems_400() throws Exception {
        String items = "{\"role\":\"user\",\"content\":\"x\"},".repeat(21);

        HttpResponse<String> response =
                http.post("/v1/conversations", "{\"items\":[" + items.substring(0, items.length() - 1) + "]}");

        assertThat(response.statusCode()).isEqualTo(400);
    }

    private static java.util.List<String> texts(JsonObject list) {
        return list.getJsonArray("data").getValuesAs(JsonObject.class).stream()
                .map(item -> item.getJsonArray("content").getJsonObject(0).getString("text"))
                .toList();
    }
}
