package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Completions {@code logprobs} as the recorded server wrote them ({@code testdata/vllm/completions_nonstream.json},
 * which asked for {@code "logprobs": 2}): one entry a token in each list, the offsets where the tokens start in the
 * text, and in each {@code top_logprobs} map the sampled token and the asked-for number of others. A stream carries
 * the same object for each chunk's token, its offset counted from the start of the choice's text.
 */
class CompletionLogprobsTest {
    private final EngineSimulator engine =
            EngineSettings.builder().model("tiny-llama").instant().start();
    private final SimHttp http = new SimHttp(engine);

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void plainAndStreamed_theRecordedShape() throws Exception {
        Recordings.Exchange recorded = Recordings.exchange(Recordings.dir().resolve("completions_nonstream.json"));
        JsonObject request = Recordings.parse(recorded.body().orElseThrow()).asJsonObject();
        JsonObject theirs = logprobs(recorded.json().orElseThrow().asJsonObject());
        String body = request.toString();

        JsonObject plain = SimHttp.json(http.post("/v1/completions", body));
        JsonObject ours = logprobs(plain);
        String text = plain.getJsonArray("choices").getJsonObject(0).getString("text");

        assertThat(ours.keySet()).containsExactlyElementsOf(theirs.keySet());
        assertThat(consistent(ours, text)).isEqualTo(consistent(theirs, text(recorded)));
        assertThat(ours.getJsonArray("top_logprobs").getJsonObject(0))
                .hasSameSizeAs(theirs.getJsonArray("top_logprobs").getJsonObject(0));

        String streamed =
                Json.createObjectBuilder(request).add("stream", true).build().toString();
        StringBuilder sofar = new StringBuilder();
        for (Sse event : Sse.parse(http.post("/v1/completions", streamed).body())) {
            if (event.data().equals("[DONE]")) {
                continue;
            }
            JsonObject chunk = logprobs(event.json());
            String piece = event.json().getJsonArray("choices").getJsonObject(0).getString("text");
            assertThat(chunk.keySet()).containsExactlyElementsOf(theirs.keySet());
            assertThat(chunk.getJsonArray("tokens").getString(0)).isEqualTo(piece);
            assertThat(chunk.getJsonArray("text_offset").getInt(0)).isEqualTo(sofar.length());
            sofar.append(piece);
        }
        assertThat(sofar.toString()).isEqualTo(text);
    }

    @Test
    void notAsked_null() throws Exception {
        JsonObject plain = SimHttp.json(http.post("/v1/completions", "{\"prompt\":\"hello\",\"max_tokens\":3}"));

        assertThat(plain.getJsonArray("choices").getJsonObject(0).get("logprobs"))
                .isEqualTo(JsonValue.NULL);
    }

    /**
     * At most vLLM's {@code --max-logprobs} alternatives: more is refused before anything is built, whatever the
     * integer's size (a 64-bit one is not wrapped to a small one, a huge one builds no huge answer).
     */
    @ParameterizedTest
    @ValueSource(strings = {"21", "100000000", "4294967298", "1e9"})
    void beyondMaxLogprobs_refused400_neverBuilt(String asked) throws Exception {
        HttpResponse<String> answer =
                http.post("/v1/completions", "{\"prompt\":\"hello\",\"max_tokens\":3,\"logprobs\":" + asked + "}");

        assertThat(answer.statusCode()).isEqualTo(400);
        JsonObject error = SimHttp.json(answer).getJsonObject("error");
        assertThat(error.getString("param")).isEqualTo("logprobs");
        assertThat(error.getString("message"))
                .startsWith("Requested sample logprobs of ")
                .endsWith("which is greater than max allowed: " + CompletionLogprobs.MAX_LOGPROBS);
    }

    @Test
    void atMaxLogprobs_served() throws Exception {
        JsonObject plain = SimHttp.json(http.post(
                "/v1/completions",
                "{\"prompt\":\"hello\",\"max_tokens\":3,\"logprobs\":" + CompletionLogprobs.MAX_LOGPROBS + ".0}"));

        assertThat(plain.getJsonArray("choices")
                        .getJsonObject(0)
                        .getJsonObject("logprobs")
                        .getJsonArray("top_logprobs")
                        .getJsonObject(0))
                .hasSize(CompletionLogprobs.MAX_LOGPROBS + 1);
    }

    /** Whether {@code logprobs} agrees with {@code text}: a token a list entry, offsets where the tokens start. */
    private static List<Boolean> consistent(JsonObject logprobs, String text) {
        int tokens = logprobs.getJsonArray("tokens").size();
        StringBuilder joined = new StringBuilder();
        boolean offsets = true;
        for (int i = 0; i < tokens; i++) {
            offsets &= logprobs.getJsonArray("text_offset").getInt(i) == joined.length();
            joined.append(logprobs.getJsonArray("tokens").getString(i));
        }
        return List.of(
                logprobs.getJsonArray("token_logprobs").size() == tokens,
                logprobs.getJsonArray("top_logprobs").size() == tokens,
                offsets,
                joined.toString().equals(text));
    }

    private static JsonObject logprobs(JsonObject answer) {
        return answer.getJsonArray("choices").getJsonObject(0).getJsonObject("logprobs");
    }

    private static String text(Recordings.Exchange recorded) {
        return recorded.json()
                .orElseThrow()
                .asJsonObject()
                .getJsonArray("choices")
                .getJsonObject(0)
                .getString("text");
    }
}
