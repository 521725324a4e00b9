package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ResponsesApiTest {
    private static final String CREATE = "{\"model\":\"m\",\"input\":\"Write a haiku about simulated engines\"";

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder().model("m").answerTokens(4).instant().start();
        http = new SimHttp(engine);
    }

    /** Restarts {@link #engine} with the OpenAI additions vLLM lacks: conversations and deleting a response. */
    private void withOpenAiAdditions() {
        engine.close();
        engine = EngineSettings.builder()
                .model("m")
                .answerTokens(4)
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
    void responses_plain_answersAStoredVllmResponse() throws Exception {
        HttpResponse<String> response = http.post("/v1/responses", CREATE + "}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonObject body = SimHttp.json(response);
        assertThat(body.getString("id")).matches("resp_[0-9a-f]{16}");
        assertThat(body.getString("object")).isEqualTo("response");
        assertThat(body.getString("status")).isEqualTo("completed");
        assertThat(body.isNull("previous_response_id")).isTrue();
        // vLLM's Response has neither a conversation nor a store field.
        assertThat(body).doesNotContainKeys("conversation", "store");
        JsonObject item = body.getJsonArray("output").getJsonObject(0);
        assertThat(item.getString("id")).matches("msg_[0-9a-f]{16}");
        assertThat(item.getString("type")).isEqualTo("message");
        assertThat(item.getString("role")).isEqualTo("assistant");
        assertThat(item.getJsonArray("content").getJsonObject(0).getString("type"))
                .isEqualTo("output_text");
        assertThat(item.getJsonArray("content").getJsonObject(0).getString("text"))
                .isEqualTo("write a haiku about");
        JsonObject usage = body.getJsonObject("usage");
        assertThat(usage.getJsonObject("input_tokens_details").getInt("cached_tokens"))
                .isZero();
        assertThat(usage.getInt("output_tokens")).isEqualTo(4);
        assertThat(usage.getInt("total_tokens")).isEqualTo(usage.getInt("input_tokens") + 4);
        assertThat(SimHttp.json(http.get("/v1/responses/" + body.getString("id"))))
                .isEqualTo(body);
    }

    @Test
    void responses_stream_vllmEventsWithSequenceNumbers() throws Exception {
        HttpResponse<String> response = http.post("/v1/responses", CREATE + ",\"stream\":true}");

        List<Sse> events = Sse.parse(response.body());
        assertThat(events)
                .extracting(e -> e.name().orElseThrow())
                .containsExactly(
                        "response.created",
                        "response.in_progress",
                        "response.output_item.added",
                        "response.content_part.added",
                        "response.output_text.delta",
                        "response.output_text.delta",
                        "response.output_text.delta",
                        "response.output_text.delta",
                        "response.output_text.done",
                        "response.content_part.done",
                        "response.output_item.done",
                        "response.completed");
        assertThat(events)
                .allSatisfy(e -> assertThat(e.json().getString("type"))
                        .isEqualTo(e.name().orElseThrow()));
        assertThat(events)
                .extracting(e -> e.json().getInt("sequence_number"))
                .containsExactlyElementsOf(
                        IntStream.range(0, events.size()).boxed().toList());
        JsonObject created = events.getFirst().json().getJsonObject("response");
        assertThat(created.getString("status")).isEqualTo("in_progress");
        assertThat(created.isNull("usage")).isTrue();
        String itemId = events.get(2).json().getJsonObject("item").getString("id");
        // While it streams, vLLM names the message item with bare hex; the completed response with msg_.
        assertThat(itemId).matches("[0-9a-f]{16}");
        assertThat(events.get(4).json().getString("item_id")).isEqualTo(itemId);
        assertThat(events.get(4).json().getString("delta")).isEqualTo("write");
        JsonObject completed = events.getLast().json().getJsonObject("response");
        assertThat(completed.getString("id")).isEqualTo(created.getString("id"));
        assertThat(completed.getString("status")).isEqualTo("completed");
        assertThat(completed.getJsonArray("output").getJsonObject(0).getString("id"))
                .matches("msg_[0-9a-f]{16}");
        assertThat(completed.getJsonObject("usage").getJsonObject("input_tokens_details"))
                .containsKey("cached_tokens");
        // stored before response.completed is written
        assertThat(http.get("/v1/responses/" + completed.getString("id")).statusCode())
                .isEqualTo(200);
    }

    @Test
    void storedResponse_lifecycle_createRetrieveInputItemsCancelDelete() throws Exception {
        withOpenAiAdditions();
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(1, Fault.holdFirstByte(gate));
        JsonObject queued = SimHttp.json(http.post("/v1/responses", CREATE + ",\"background\":true}"));
        String id = queued.getString("id");
        assertThat(queued.getString("status")).isEqualTo("queued");
        assertThat(queued.getBoolean("background")).isTrue();

        assertThat(SimHttp.json(http.get("/v1/responses/" + id)).getString("status"))
                .isEqualTo("queued");
        JsonObject items = SimHttp.json(http.get("/v1/responses/" + id + "/input_items"));
        assertThat(items.getString("object")).isEqualTo("list");
        JsonObject input = items.getJsonArray("data").getJsonObject(0);
        assertThat(input.getString("id")).startsWith("msg_");
        assertThat(input.getString("role")).isEqualTo("user");
        assertThat(input.getJsonArray("content").getJsonObject(0).getString("type"))
                .isEqualTo("input_text");
        assertThat(items.getString("first_id")).isEqualTo(input.getString("id"));
        assertThat(items.getBoolean("has_more")).isFalse();

        HttpResponse<String> cancelled = http.post("/v1/responses/" + id + "/cancel", "");
        assertThat(SimHttp.json(cancelled).getString("status")).isEqualTo("cancelled");
        gate.countDown();
        assertThat(engine.awaitQueue(0, 0, SimHttp.TIMEOUT)).isTrue();
        assertThat(SimHttp.json(http.get("/v1/responses/" + id)).getString("status"))
                .isEqualTo("cancelled");

        JsonObject deleted = SimHttp.json(http.delete("/v1/responses/" + id));
        assertThat(deleted.getString("id")).isEqualTo(id);
        assertThat(deleted.getString("object")).isEqualTo("response");
        assertThat(deleted.getBoolean("deleted")).isTrue();
        assertThat(http.get("/v1/responses/" + id).statusCode()).isEqualTo(404);
        assertThat(http.delete("/v1/responses/" + id).statusCode()).isEqualTo(404);
        assertThat(http.get("/v1/responses/" + id + "/input_items").statusCode())
                .isEqualTo(404);
    }

    @Test
    void delete_asVllm_405InFastApiShapeAndTheResponseStays() throws Exception {
        String id = SimHttp.json(http.post("/v1/responses", CREATE + "}")).getString("id");

        HttpResponse<String> deleted = http.delete("/v1/responses/" + id);

        assertThat(deleted.statusCode()).isEqualTo(405);
        assertThat(deleted.body()).isEqualTo("{\"detail\":\"Method Not Allowed\"}");
        assertThat(deleted.headers().firstValue("allow")).contains("GET");
        assertThat(http.get("/v1/responses/" + id).statusCode()).isEqualTo(200);
    }

    @Test
    void conversations_asVllm_404AndTheFieldIgnored() throws Exception {
        HttpResponse<String> create = http.post("/v1/conversations", "{}");
        HttpResponse<String> named = http.post("/v1/responses", CREATE + ",\"conversation\":\"conv_1\"}");

        assertThat(create.statusCode()).isEqualTo(404);
        assertThat(create.body()).isEqualTo("{\"detail\":\"Not Found\"}");
        assertThat(http.get("/v1/conversations/conv_1").statusCode()).isEqualTo(404);
        assertThat(named.statusCode()).isEqualTo(200);
        assertThat(SimHttp.json(named)).doesNotContainKey("conversation");
    }

    @Test
    void backgroundResponse_notCancelled_completesInTheStore() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        engine.failNext(1, Fault.holdFirstByte(gate));
        String id = SimHttp.json(http.post("/v1/responses", CREATE + ",\"background\":true}"))
                .getString("id");
        // The background run holds its slot at the gate: without this wait, an engine that has not yet started it
        // also shows no request running, and the response would be read while still queued.
        assertThat(engine.awaitQueue(1, 0, SimHttp.TIMEOUT)).isTrue();

        gate.countDown();
        assertThat(engine.awaitQueue(0, 0, SimHttp.TIMEOUT)).isTrue();

        // the background thread releases its slot after storing the finished response
        JsonObject done = SimHttp.json(http.get("/v1/responses/" + id));
        assertThat(done.getString("status")).isEqualTo("completed");
        assertThat(done.getJsonArray("output")).hasSize(1);
    }

    @Test
    void cancel_synchronousResponse_400AsVllm() throws Exception {
        String id = SimHttp.json(http.post("/v1/responses", CREATE + "}")).getString("id");

        HttpResponse<String> response = http.post("/v1/responses/" + id + "/cancel", "");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(SimHttp.json(response).getJsonObject("error").getString("message"))
                .isEqualTo("Cannot cancel a synchronous response.");
    }

    @Test
    void previousResponseId_unknown_404InOpenAiShape() throws Exception {
        HttpResponse<String> response = http.post("/v1/responses", CREATE + ",\"previous_response_id\":\"resp_0000\"}");

        assertThat(response.statusCode()).isEqualTo(404);
        JsonObject error = SimHttp.json(response).getJsonObject("error");
        assertThat(error.getString("message")).isEqualTo("Response with id 'resp_0000' not found.");
        assertThat(error.getString("type")).isEqualTo("invalid_request_error");
        assertThat(error.getString("param")).isEqualTo("previous_response_id");
        assertThat(error.getInt("code")).isEqualTo(404);
    }

    @Test
    void previousResponseId_ofAnotherSimulator_404() throws Exception {
        try (EngineSimulator other =
                EngineSettings.builder().model("m").instant().start()) {
            String foreign = SimHttp.json(new SimHttp(other).post("/v1/responses", CREATE + "}"))
                    .getString("id");

            assertThat(http.post("/v1/responses", CREATE + ",\"previous_response_id\":\"" + foreign + "\"}")
                            .statusCode())
                    .isEqualTo(404);
        }
    }

    @Test
    void previousResponseId_stored_chainsAndHitsThePrefixCache() throws Exception {
        String longInput = "Write a haiku about simulated engines, their slots, their queues and their caches.";
        String first = SimHttp.json(http.post("/v1/responses", "{\"model\":\"m\",\"input\":\"" + longInput + "\"}"))
                .getString("id");

        JsonObject second = SimHttp.json(http.post(
                "/v1/responses",
                "{\"model\":\"m\",\"input\":\"And another one\",\"previous_response_id\":\"" + first + "\"}"));

        assertThat(second.getString("previous_response_id")).isEqualTo(first);
        assertThat(second.getJsonObject("usage")
                        .getJsonObject("input_tokens_details")
                        .getInt("cached_tokens"))
                .isPositive();
    }

    @Test
    void storeFalse_notRetrievable() throws Exception {
        JsonObject body = SimHttp.json(http.post("/v1/responses", CREATE + ",\"store\":false}"));

        assertThat(http.get("/v1/responses/" + body.getString("id")).statusCode())
                .isEqualTo(404);
    }

    @Test
    void conversation_unknownOrWithPreviousResponseId_refused() throws Exception {
        withOpenAiAdditions();
        HttpResponse<String> unknown = http.post("/v1/responses", CREATE + ",\"conversation\":{\"id\":\"conv_1\"}}");
        HttpResponse<String> both = http.post(
                "/v1/responses", CREATE + ",\"conversation\":\"conv_1\",\"previous_response_id\":\"resp_1\"}");

        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(SimHttp.json(unknown).getJsonObject("error").getString("param"))
                .isEqualTo("conversation");
        assertThat(both.statusCode()).isEqualTo(400);
    }

    @Test
    void conversation_known_nameInResponseAndTurnAppended() throws Exception {
        withOpenAiAdditions();
        String conversation = SimHttp.json(http.post("/v1/conversations", "{}")).getString("id");

        JsonObject body =
                SimHttp.json(http.post("/v1/responses", CREATE + ",\"conversation\":\"" + conversation + "\"}"));

        assertThat(body.getJsonObject("conversation").getString("id")).isEqualTo(conversation);
        JsonObject items = SimHttp.json(http.get("/v1/conversations/" + conversation + "/items?order=asc"));
        assertThat(items.getJsonArray("data").getValuesAs(JsonObject.class))
                .extracting(i -> i.getString("role"))
                .containsExactly("user", "assistant");
    }

    @Test
    void inputTokens_countsThePromptAndChecksPreviousResponseId() throws Exception {
        JsonObject counted = SimHttp.json(http.post("/v1/responses/input_tokens", CREATE + "}"));
        JsonObject created = SimHttp.json(http.post("/v1/responses", CREATE + "}"));
        HttpResponse<String> unknown =
                http.post("/v1/responses/input_tokens", CREATE + ",\"previous_response_id\":\"resp_x\"}");

        assertThat(counted.getString("object")).isEqualTo("response.input_tokens");
        assertThat(counted.getInt("input_tokens"))
                .isEqualTo(created.getJsonObject("usage").getInt("input_tokens"));
        assertThat(unknown.statusCode()).isEqualTo(404);
    }

    @Test
    void responses_maxOutputTokensBelowTheAnswer_incomplete() throws Exception {
        JsonObject body = SimHttp.json(http.post("/v1/responses", CREATE + ",\"max_output_tokens\":2}"));

        assertThat(body.getString("status")).isEqualTo("incomplete");
        assertThat(body.getJsonObject("incomplete_details").getString("reason")).isEqualTo("max_output_tokens");
    }
}
