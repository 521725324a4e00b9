package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChatCompletionsTest {
    private static final String CHAT = "{\"model\":\"m\",\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
            + "{\"role\":\"user\",\"content\":\"Say hello to the grid\"}]";

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder().model("m").model("m2").instant().start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void chat_plain_answersAVllmChatCompletion() throws Exception {
        HttpResponse<String> response = http.post("/v1/chat/completions", CHAT + "}");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).contains("application/json");
        JsonObject body = SimHttp.json(response);
        assertThat(body.getString("id")).matches("chatcmpl-[0-9a-f]{16}");
        assertThat(body.getString("object")).isEqualTo("chat.completion");
        assertThat(body.getString("model")).isEqualTo("m");
        assertThat(body.getJsonNumber("created").longValue()).isPositive();
        JsonObject choice = body.getJsonArray("choices").getJsonObject(0);
        assertThat(choice.getInt("index")).isZero();
        assertThat(choice.getString("finish_reason")).isEqualTo("stop");
        assertThat(choice.getJsonObject("message").getString("role")).isEqualTo("assistant");
        assertThat(choice.getJsonObject("message").getString("content"))
                .isEqualTo("say hello to the grid say hello to");
        JsonObject usage = body.getJsonObject("usage");
        assertThat(usage.getInt("completion_tokens")).isEqualTo(8);
        assertThat(usage.getInt("total_tokens")).isEqualTo(usage.getInt("prompt_tokens") + 8);
        // vLLM reports no cached tokens when there are none: prompt_tokens_details is null, not {cached_tokens: 0}.
        assertThat(usage.isNull("prompt_tokens_details")).isTrue();
        assertThat(body.getString("system_fingerprint")).startsWith("vllm-");
    }

    @Test
    void chat_maxTokensBelowTheAnswer_truncatesWithLength() throws Exception {
        JsonObject body = SimHttp.json(http.post("/v1/chat/completions", CHAT + ",\"max_tokens\":3}"));

        assertThat(body.getJsonArray("choices").getJsonObject(0).getString("finish_reason"))
                .isEqualTo("length");
        assertThat(body.getJsonObject("usage").getInt("completion_tokens")).isEqualTo(3);
    }

    @Test
    void chat_stream_sendsRoleChunkTokenChunksThenDone() throws Exception {
        HttpResponse<String> response = http.post("/v1/chat/completions", CHAT + ",\"stream\":true}");

        assertThat(response.headers().firstValue("content-type")).contains(EventStream.CONTENT_TYPE);
        List<Sse> events = Sse.parse(response.body());
        assertThat(events).hasSize(1 + 8 + 1);
        assertThat(events).allSatisfy(e -> assertThat(e.name()).isEmpty());
        assertThat(events.getLast().data()).isEqualTo("[DONE]");
        List<JsonObject> chunks = events.subList(0, 9).stream().map(Sse::json).toList();
        String id = chunks.getFirst().getString("id");
        assertThat(id).startsWith("chatcmpl-");
        assertThat(chunks).allSatisfy(c -> {
            assertThat(c.getString("id")).isEqualTo(id);
            assertThat(c.getString("object")).isEqualTo("chat.completion.chunk");
            assertThat(c.containsKey("usage")).isFalse();
        });
        assertThat(delta(chunks.getFirst()).getString("role")).isEqualTo("assistant");
        StringBuilder text = new StringBuilder();
        chunks.subList(1, 9).forEach(c -> text.append(delta(c).getString("content")));
        assertThat(text).hasToString("say hello to the grid say hello to");
        assertThat(choice(chunks.get(7)).isNull("finish_reason")).isTrue();
        assertThat(choice(chunks.get(8)).getString("finish_reason")).isEqualTo("stop");
    }

    @Test
    void chat_streamWithIncludeUsage_endsWithAUsageChunkBeforeDone() throws Exception {
        HttpResponse<String> response = http.post(
                "/v1/chat/completions", CHAT + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

        List<Sse> events = Sse.parse(response.body());
        assertThat(events).hasSize(1 + 8 + 1 + 1);
        JsonObject usageChunk = events.get(9).json();
        assertThat(usageChunk.getJsonArray("choices")).isEmpty();
        assertThat(usageChunk.getJsonObject("usage").getInt("completion_tokens"))
                .isEqualTo(8);
        // In a stream's usage chunk vLLM leaves prompt_tokens_details out when nothing was cached.
        assertThat(usageChunk.getJsonObject("usage")).doesNotContainKey("prompt_tokens_details");
        assertThat(events.subList(0, 9)).allSatisfy(e -> assertThat(e.json()).doesNotContainKey("usage"));
        assertThat(events.get(10).data()).isEqualTo("[DONE]");
    }

    @Test
    void zeroCachedTokensReported_cachedTokensZeroInPlainAndStreamedUsage() throws Exception {
        engine.close();
        engine = EngineSettings.builder()
                .model("m")
                .api(ApiSurface.VLLM.withZeroCachedTokensReported())
                .instant()
                .start();
        http = new SimHttp(engine);

        JsonObject plain = SimHttp.json(http.post("/v1/chat/completions", CHAT + "}"));
        // Another prompt, so that nothing of the first is cached.
        List<Sse> stream = Sse.parse(http.post(
                        "/v1/chat/completions",
                        CHAT.replace("Be brief.", "Be terse.")
                                + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}")
                .body());

        assertThat(plain.getJsonObject("usage")
                        .getJsonObject("prompt_tokens_details")
                        .getInt("cached_tokens"))
                .isZero();
        assertThat(stream.get(stream.size() - 2)
                        .json()
                        .getJsonObject("usage")
                        .getJsonObject("prompt_tokens_details")
                        .getInt("cached_tokens"))
                .isZero();
    }

    @Test
    void chat_streamWithContinuousUsage_everyChunkCarriesTheUsageSoFar() throws Exception {
        HttpResponse<String> response = http.post(
                "/v1/chat/completions",
                CHAT + ",\"max_tokens\":3,\"stream\":true,"
                        + "\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":true}}");

        List<Sse> events = Sse.parse(response.body());
        // role chunk, 3 token chunks, usage chunk, [DONE]
        assertThat(events).hasSize(6);
        List<Integer> completion = events.subList(0, 5).stream()
                .map(e -> e.json().getJsonObject("usage").getInt("completion_tokens"))
                .toList();
        assertThat(completion).containsExactly(0, 1, 2, 3, 3);
        assertThat(events.get(4).json().getJsonArray("choices")).isEmpty();
    }

    @Test
    void chat_continuousUsageWithoutIncludeUsage_noUsageAtAll() throws Exception {
        HttpResponse<String> response = http.post(
                "/v1/chat/completions",
                CHAT + ",\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":true}}");

        List<Sse> events = Sse.parse(response.body());
        assertThat(events).hasSize(1 + 8 + 1);
        assertThat(events.subList(0, 9)).allSatisfy(e -> assertThat(e.json()).doesNotContainKey("usage"));
    }

    @Test
    void chat_secondModel_answersWithIt_noModelAnswersWithTheFirst() throws Exception {
        JsonObject second = SimHttp.json(http.post(
                "/v1/chat/completions", "{\"model\":\"m2\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"));
        JsonObject none = SimHttp.json(
                http.post("/v1/chat/completions", "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}"));

        assertThat(second.getString("model")).isEqualTo("m2");
        assertThat(none.getString("model")).isEqualTo("m");
    }

    @Test
    void chat_unknownModel_404InVllmShape() throws Exception {
        HttpResponse<String> response = http.post(
                "/v1/chat/completions", "{\"model\":\"nope\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

        assertThat(response.statusCode()).isEqualTo(404);
        JsonObject error = SimHttp.json(response).getJsonObject("error");
        assertThat(error.getString("type")).isEqualTo("NotFoundError");
        assertThat(error.getString("message")).isEqualTo("The model `nope` does not exist.");
        assertThat(error.getString("param")).isEqualTo("model");
        assertThat(error.getInt("code")).isEqualTo(404);
    }

    @Test
    void chat_malformedJson_400InOpenAiShape_asVllmsValidationError() throws Exception {
        HttpResponse<String> response = http.post("/v1/chat/completions", "{\"model\":");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonObject error = SimHttp.json(response).getJsonObject("error");
        // FastAPI refuses text that is not JSON with the same validation error as a missing field
        // (ValidationErrorsTest)
        assertThat(error.getString("type")).isEqualTo("Bad Request");
        assertThat(error.getString("message")).contains("'type': 'json_invalid'");
        assertThat(error.isNull("param")).isTrue();
        assertThat(error.getInt("code")).isEqualTo(400);
        assertThat(response.headers().firstValue("connection")).contains("close");
    }

    @Test
    void chat_noMessages_pydanticValidationErrorAsVllm() throws Exception {
        HttpResponse<String> response = http.post("/v1/chat/completions", "{\"model\":\"m\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonObject error = SimHttp.json(response).getJsonObject("error");
        assertThat(error.getString("type")).isEqualTo("Bad Request");
        assertThat(error.getString("message")).startsWith("1 validation error:").contains("'messages'");
        assertThat(error.isNull("param")).isTrue();
        assertThat(error.getInt("code")).isEqualTo(400);
    }

    @Test
    void chat_emptyCacheSaltOrNoMessages_400() throws Exception {
        HttpResponse<String> salt = http.post("/v1/chat/completions", CHAT + ",\"cache_salt\":\"\"}");
        HttpResponse<String> noMessages = http.post("/v1/chat/completions", "{\"model\":\"m\"}");

        assertThat(salt.statusCode()).isEqualTo(400);
        assertThat(SimHttp.json(salt).getJsonObject("error").getString("type")).isEqualTo("Bad Request");
        assertThat(SimHttp.json(salt).getJsonObject("error").isNull("param")).isTrue();
        assertThat(noMessages.statusCode()).isEqualTo(400);
    }

    @Test
    void completions_plain_oneChoicePerPrompt() throws Exception {
        JsonObject body = SimHttp.json(
                http.post("/v1/completions", "{\"model\":\"m\",\"prompt\":[\"one two\",\"three\"],\"max_tokens\":2}"));

        assertThat(body.getString("id")).matches("cmpl-[0-9a-f]{16}");
        assertThat(body.getString("object")).isEqualTo("text_completion");
        assertThat(body.getJsonArray("choices")).hasSize(2);
        assertThat(body.getJsonArray("choices").getJsonObject(0).getString("text"))
                .isEqualTo("one two");
        assertThat(body.getJsonArray("choices").getJsonObject(1).getString("text"))
                .isEqualTo("three three");
        assertThat(body.getJsonArray("choices").getJsonObject(1).getInt("index"))
                .isEqualTo(1);
        assertThat(body.getJsonObject("usage").getInt("completion_tokens")).isEqualTo(4);
        assertThat(body.getJsonObject("usage").isNull("prompt_tokens_details")).isTrue();
    }

    @Test
    void completions_tokenIdPrompt_countsOneTokenPerId() throws Exception {
        JsonObject body = SimHttp.json(http.post("/v1/completions", "{\"prompt\":[1,2,3,40000,5]}"));

        assertThat(body.getJsonObject("usage").getInt("prompt_tokens")).isEqualTo(5);
    }

    @Test
    void completions_stream_textCompletionChunksThenUsageThenDone() throws Exception {
        HttpResponse<String> response = http.post(
                "/v1/completions",
                "{\"model\":\"m\",\"prompt\":\"alpha beta\",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

        List<Sse> events = Sse.parse(response.body());
        assertThat(events).hasSize(8 + 1 + 1);
        JsonObject first = events.getFirst().json();
        assertThat(first.getString("id")).startsWith("cmpl-");
        assertThat(first.getString("object")).isEqualTo("text_completion");
        assertThat(first.getJsonArray("choices").getJsonObject(0).getString("text"))
                .isEqualTo("alpha");
        assertThat(events.get(7).json().getJsonArray("choices").getJsonObject(0).getString("finish_reason"))
                .isEqualTo("stop");
        assertThat(events.get(8).json().getJsonObject("usage").getInt("completion_tokens"))
                .isEqualTo(8);
        assertThat(events.get(8).json().getJsonArray("choices")).isEmpty();
        assertThat(events.get(9).data()).isEqualTo("[DONE]");
    }

    @Test
    void completions_suffix_400AsVllm() throws Exception {
        HttpResponse<String> response = http.post("/v1/completions", "{\"prompt\":\"a\",\"suffix\":\"b\"}");

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(SimHttp.json(response).getJsonObject("error").getString("message"))
                .isEqualTo("suffix is not currently supported");
    }

    @Test
    void models_listsTheServedModels() throws Exception {
        JsonObject body = SimHttp.json(http.get("/v1/models"));

        assertThat(body.getString("object")).isEqualTo("list");
        assertThat(body.getJsonArray("data").getValuesAs(JsonObject.class))
                .extracting(m -> m.getString("id"), m -> m.getString("object"), m -> m.getString("owned_by"))
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("m", "model", "vllm"),
                        org.assertj.core.groups.Tuple.tuple("m2", "model", "vllm"));
    }

    @Test
    void unknownPathAndWrongMethod_fastApiBodies() throws Exception {
        HttpResponse<String> unknown = http.get("/v1/embeddings");
        HttpResponse<String> wrongMethod = http.get("/v1/chat/completions");
        HttpResponse<String> health = http.get("/health");

        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).isEqualTo("{\"detail\":\"Not Found\"}");
        assertThat(wrongMethod.statusCode()).isEqualTo(405);
        assertThat(wrongMethod.body()).isEqualTo("{\"detail\":\"Method Not Allowed\"}");
        assertThat(wrongMethod.headers().firstValue("allow")).contains("POST");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEmpty();
    }

    private static JsonObject choice(JsonObject chunk) {
        return chunk.getJsonArray("choices").getJsonObject(0);
    }

    private static JsonObject delta(JsonObject chunk) {
        return choice(chunk).getJsonObject("delta");
    }

    @Test
    void chat_bodyAfterAUtf8ByteOrderMark_servedAsPythonsJsonSkipsIt_aSecondMarkIsRefused() throws Exception {
        byte[] one = ("\uFEFF" + CHAT + "}").getBytes(StandardCharsets.UTF_8);
        byte[] two = ("\uFEFF\uFEFF" + CHAT + "}").getBytes(StandardCharsets.UTF_8);

        HttpResponse<String> served = http.send(http.request("/v1/chat/completions")
                .POST(HttpRequest.BodyPublishers.ofByteArray(one))
                .header("Content-Type", "application/json")
                .build());
        HttpResponse<String> refused = http.send(http.request("/v1/chat/completions")
                .POST(HttpRequest.BodyPublishers.ofByteArray(two))
                .header("Content-Type", "application/json")
                .build());

        assertThat(served.statusCode()).isEqualTo(200);
        assertThat(SimHttp.json(served).getString("object")).isEqualTo("chat.completion");
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(SimHttp.json(refused).getJsonObject("error").getString("message"))
                .contains(
                        "'loc': ('body', 0), 'msg': 'JSON decode error', 'input': {}, 'ctx': {'error': 'Expecting value'}");
    }

    /**
     * What vLLM's FastAPI front answers for a body it cannot parse: 400 in the OpenAI shape, never a 500, which the
     * gateway would take for the engine's failure.
     */
    @ParameterizedTest
    @ValueSource(strings = {"data after the value", "nested past the parser's limit", "bytes that are not UTF-8"})
    void chat_unparsableBody_400NeverA500(String kind) throws Exception {
        byte[] body = switch (kind) {
            case "data after the value" -> (CHAT + "} xx").getBytes(StandardCharsets.UTF_8);
            case "nested past the parser's limit" ->
                (CHAT + ",\"x\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}").getBytes(StandardCharsets.UTF_8);
            default -> {
                byte[] text = (CHAT + ",\"x\":\"--\"}").getBytes(StandardCharsets.UTF_8);
                int at = new String(text, StandardCharsets.UTF_8).indexOf("--");
                text[at] = (byte) 0xff; // never in UTF-8
                text[at + 1] = (byte) 0xfe;
                yield text;
            }
        };
        HttpResponse<String> response = http.send(http.request("/v1/chat/completions")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", "application/json")
                .build());

        assertThat(response.statusCode()).isEqualTo(400);
        JsonObject error = SimHttp.json(response).getJsonObject("error");
        assertThat(error.getInt("code")).isEqualTo(400);
        if (kind.equals("data after the value")) {
            assertThat(error.getString("message"))
                    .startsWith("1 validation error:")
                    .contains("'msg': 'JSON decode error', 'input': {}, 'ctx': {'error': 'Extra data'}");
        } else {
            assertThat(error.getString("message")).isEqualTo(JsonText.UNPARSABLE);
        }
    }
}
