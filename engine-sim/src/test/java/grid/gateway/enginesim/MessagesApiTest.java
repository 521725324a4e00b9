package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class MessagesApiTest {
    private static final String MESSAGES = "{\"model\":\"m\",\"max_tokens\":64,\"system\":\"Be brief.\","
            + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hello Claude\"}]}]";

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder().model("m").answerTokens(3).instant().start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void messages_plain_answersAnAnthropicMessage() throws Exception {
        HttpResponse<String> response = http.post("/v1/messages", MESSAGES + "}");

        assertThat(response.statusCode()).isEqualTo(200);
        JsonObject body = SimHttp.json(response);
        // vLLM's Anthropic endpoint names its messages with Chat Completions ids.
        assertThat(body.getString("id")).matches("chatcmpl-[0-9a-f]{16}");
        assertThat(body.getString("type")).isEqualTo("message");
        assertThat(body.getString("role")).isEqualTo("assistant");
        assertThat(body.getString("model")).isEqualTo("m");
        assertThat(body.getJsonArray("content").getJsonObject(0).getString("type"))
                .isEqualTo("text");
        assertThat(body.getJsonArray("content").getJsonObject(0).getString("text"))
                .isEqualTo("hello claude hello");
        assertThat(body.getString("stop_reason")).isEqualTo("end_turn");
        JsonObject usage = body.getJsonObject("usage");
        assertThat(usage.getInt("input_tokens")).isPositive();
        assertThat(usage.getInt("output_tokens")).isEqualTo(3);
        // vLLM never reports a cache hit here: usage has input and output tokens only.
        assertThat(usage.keySet()).containsExactly("input_tokens", "output_tokens");
    }

    @Test
    void messages_stream_anthropicEventsInOrder() throws Exception {
        HttpResponse<String> response = http.post("/v1/messages", MESSAGES + ",\"stream\":true}");

        List<Sse> events = Sse.parse(response.body());
        assertThat(events)
                .extracting(e -> e.name().orElseThrow())
                .containsExactly(
                        "message_start",
                        "content_block_start",
                        "content_block_delta",
                        "content_block_delta",
                        "content_block_delta",
                        "content_block_stop",
                        "message_delta",
                        "message_stop");
        // every JSON carries the event's name as its type
        assertThat(events)
                .allSatisfy(e -> assertThat(e.json().getString("type"))
                        .isEqualTo(e.name().orElseThrow()));
        JsonObject start = events.getFirst().json().getJsonObject("message");
        assertThat(start.getString("id")).startsWith("chatcmpl-");
        assertThat(start.getJsonArray("content")).isEmpty();
        assertThat(start.getJsonObject("usage").getInt("output_tokens")).isZero();
        assertThat(start.getJsonObject("usage").keySet()).containsExactly("input_tokens", "output_tokens");
        assertThat(events.get(2).json().getJsonObject("delta").getString("type"))
                .isEqualTo("text_delta");
        assertThat(events.get(2).json().getJsonObject("delta").getString("text"))
                .isEqualTo("hello");
        JsonObject delta = events.get(6).json();
        assertThat(delta.getJsonObject("delta").getString("stop_reason")).isEqualTo("end_turn");
        assertThat(delta.getJsonObject("usage").getInt("output_tokens")).isEqualTo(3);
    }

    @Test
    void messages_maxTokensBelowTheAnswer_stopsWithMaxTokens() throws Exception {
        JsonObject body = SimHttp.json(http.post(
                "/v1/messages",
                "{\"model\":\"m\",\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"hi there\"}]}"));

        assertThat(body.getString("stop_reason")).isEqualTo("max_tokens");
    }

    @Test
    void countTokens_answersInputTokens() throws Exception {
        JsonObject body = SimHttp.json(http.post("/v1/messages/count_tokens", MESSAGES + "}"));
        JsonObject message = SimHttp.json(http.post("/v1/messages", MESSAGES + "}"));

        assertThat(body.keySet()).containsExactly("input_tokens", "context_management");
        assertThat(body.getJsonObject("context_management").getInt("original_input_tokens"))
                .isEqualTo(body.getInt("input_tokens"));
        assertThat(body.getInt("input_tokens"))
                .isEqualTo(message.getJsonObject("usage").getInt("input_tokens"));
    }

    @Test
    void messages_malformedJson_400InAnthropicShape() throws Exception {
        HttpResponse<String> response = http.post("/v1/messages", "not json");

        assertThat(response.statusCode()).isEqualTo(400);
        JsonObject body = SimHttp.json(response);
        assertThat(body.getString("type")).isEqualTo("error");
        assertThat(body.getJsonObject("error").getString("type")).isEqualTo("invalid_request_error");
        assertThat(body.getJsonObject("error").getString("message")).contains("'msg': 'JSON decode error'");
    }

    @Test
    void messages_missingMaxTokensOrUnknownModel_anthropicErrors() throws Exception {
        HttpResponse<String> noMax =
                http.post("/v1/messages", "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
        HttpResponse<String> unknown = http.post(
                "/v1/messages",
                "{\"model\":\"nope\",\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");

        assertThat(noMax.statusCode()).isEqualTo(400);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(SimHttp.json(unknown).getJsonObject("error").getString("type"))
                .isEqualTo("not_found_error");
        assertThat(Optional.of(SimHttp.json(unknown).getString("type"))).contains("error");
    }
}
