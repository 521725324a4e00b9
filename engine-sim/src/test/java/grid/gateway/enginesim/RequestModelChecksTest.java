package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The checks vLLM's request models make before reading any field (their {@code model_validator(mode="before")}s):
 * each refusal is pydantic's {@code value_error} answered by the handler that answered the recorded missing field
 * ({@code testdata/vllm/error_bad_json.json}): the same status, headers, connection close and error keys, the message
 * naming the check's exception, and as param the parameter of a {@code VLLMValidationError} (null for a plain
 * {@code ValueError}). The model is looked up only after them, so an unknown model does not hide them.
 */
class RequestModelChecksTest {
    private static final String FRAME =
            "\n\n  File \"/opt/venv/lib/python3.11/site-packages/vllm/entrypoints/utils.py\"," + " line 40, in ";
    private static final String HI = "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    private final EngineSimulator engine =
            EngineSettings.builder().model("tiny-llama").instant().start();
    private final SimHttp http = new SimHttp(engine);
    private final GatewayView view = new GatewayView(16);
    private final Recordings.Exchange recorded =
            Recordings.exchange(Recordings.dir().resolve("error_bad_json.json"));

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void chat_streamOptionsWithoutStream_vllmsValidationErrorWordForWord() throws Exception {
        String body = "{\"model\":\"tiny-llama\"," + HI + ",\"stream_options\":{\"include_usage\":true}}";

        HttpResponse<String> answer = http.post("/v1/chat/completions", body);

        String error = "{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, Stream options can only be"
                + " defined when `stream=True`. (parameter=stream_options)', 'input': {'model': 'tiny-llama',"
                + " 'messages': [{'role': 'user', 'content': 'hi'}], 'stream_options': {'include_usage': True}},"
                + " 'ctx': {'error': VLLMValidationError('Stream options can only be defined when `stream=True`.')}}";
        assertThat(message(answer))
                .isEqualTo("1 validation error:\n  " + error + FRAME
                        + "create_chat_completion\n    POST /v1/chat/completions [" + error + "]");
        assertThat(error(answer).getString("param")).isEqualTo("stream_options");
        assertThat(withoutMessageAndParam(answer)).containsExactlyElementsOf(recordedWithoutMessageAndParam());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ",\"stream\":false", ",\"stream\":null", ",\"stream\":0"})
    void completions_streamOptionsWithoutATrueStream_refused(String stream) throws Exception {
        HttpResponse<String> answer = http.post(
                "/v1/completions", "{\"prompt\":\"hi\",\"stream_options\":{\"include_usage\":true}" + stream + "}");

        assertThat(error(answer).getString("param")).isEqualTo("stream_options");
        assertThat(message(answer))
                .contains("(parameter=stream_options)")
                .contains(FRAME + "create_completion\n    POST /v1/completions [");
        assertThat(withoutMessageAndParam(answer)).containsExactlyElementsOf(recordedWithoutMessageAndParam());
    }

    @Test
    void streamOptionsThatPythonReadsAsEmpty_orWithAStream_served() throws Exception {
        HttpResponse<String> empty = http.post("/v1/completions", "{\"prompt\":\"hi\",\"stream_options\":{}}");
        HttpResponse<String> none = http.post("/v1/chat/completions", "{" + HI + ",\"stream_options\":null}");
        HttpResponse<String> streamed = http.post(
                "/v1/chat/completions", "{" + HI + ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}");

        assertThat(List.of(empty.statusCode(), none.statusCode(), streamed.statusCode()))
                .containsExactly(200, 200, 200);
    }

    @Test
    void anUnknownModel_refusedByTheChecksFirst_asThoseRunBeforeTheLookup() throws Exception {
        HttpResponse<String> streamOptions =
                http.post("/v1/chat/completions", "{\"model\":\"nope\"," + HI + ",\"stream_options\":{\"x\":1}}");
        HttpResponse<String> noMessages = http.post("/v1/chat/completions", "{\"model\":\"nope\"}");
        HttpResponse<String> noPrompt = http.post("/v1/completions", "{\"model\":\"nope\"}");

        assertThat(error(streamOptions).getString("type")).isEqualTo("Bad Request");
        assertThat(error(noMessages).getString("type")).isEqualTo("Bad Request");
        assertThat(error(noPrompt).getString("type")).isEqualTo("Bad Request");
    }

    @Test
    void emptyCacheSalt_aPlainValueError_paramNull() throws Exception {
        HttpResponse<String> answer = http.post("/v1/chat/completions", "{" + HI + ",\"cache_salt\":\"\"}");

        assertThat(message(answer))
                .startsWith("1 validation error:\n  {'type': 'value_error', 'loc': ('body',), 'msg': \"Value error,"
                        + " Parameter 'cache_salt' must be a non-empty string if provided.\", 'input': {")
                .contains("'ctx': {'error': ValueError(\"Parameter 'cache_salt' must be a non-empty string if"
                        + " provided.\")}}" + FRAME);
        assertThat(error(answer).isNull("param")).isTrue();
        assertThat(withoutMessageAndParam(answer)).containsExactlyElementsOf(recordedWithoutMessageAndParam());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ",\"prompt\":null", ",\"prompt\":\"\""})
    void completions_noPrompt_aPlainValueError(String prompt) throws Exception {
        HttpResponse<String> answer = http.post("/v1/completions", "{\"model\":\"tiny-llama\"" + prompt + "}");

        assertThat(message(answer))
                .contains("'msg': 'Value error, Either prompt or prompt_embeds must be provided and non-empty.'")
                .contains("ValueError('Either prompt or prompt_embeds must be provided and non-empty.')");
        assertThat(error(answer).isNull("param")).isTrue();
        assertThat(withoutMessageAndParam(answer)).containsExactlyElementsOf(recordedWithoutMessageAndParam());
    }

    @Test
    void toolChoiceWithoutTools_refused_andToolsWithoutAChoiceGetAuto() throws Exception {
        HttpResponse<String> noTools = http.post("/v1/chat/completions", "{" + HI + ",\"tool_choice\":\"auto\"}");
        HttpResponse<String> auto = http.post(
                "/v1/chat/completions",
                "{" + HI + ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}],"
                        + "\"stream_options\":{\"include_usage\":true}}");

        assertThat(message(noTools)).contains("'msg': 'Value error, When using `tool_choice`, `tools` must be set.'");
        assertThat(error(noTools).isNull("param")).isTrue();
        assertThat(message(auto))
                .contains("'name': 'f'}}], 'stream_options': {'include_usage': True}, 'tool_choice':"
                        + " 'auto'}, 'ctx'");
    }

    @Test
    void logprobLimits_vllmValidationErrorsWithTheirParameter() throws Exception {
        HttpResponse<String> topWithoutLogprobs = http.post("/v1/chat/completions", "{" + HI + ",\"top_logprobs\":2}");
        HttpResponse<String> negative = http.post("/v1/completions", "{\"prompt\":\"hi\",\"logprobs\":-2}");
        HttpResponse<String> promptLogprobsStreamed =
                http.post("/v1/completions", "{\"prompt\":\"hi\",\"stream\":true,\"prompt_logprobs\":1}");

        assertThat(error(topWithoutLogprobs).getString("param")).isEqualTo("top_logprobs");
        assertThat(message(topWithoutLogprobs))
                .contains("when using `top_logprobs`, `logprobs` must be set to true. (parameter=top_logprobs)'");
        assertThat(error(negative).getString("param")).isEqualTo("logprobs");
        assertThat(message(negative))
                .contains("'Value error, `logprobs` must be a positive value. (parameter=logprobs, value=-2)'");
        assertThat(error(promptLogprobsStreamed).getString("param")).isEqualTo("prompt_logprobs");
        assertThat(withoutMessageAndParam(negative)).containsExactlyElementsOf(recordedWithoutMessageAndParam());
    }

    private List<String> withoutMessageAndParam(HttpResponse<String> answer) {
        return withoutMessageAndParam(view.of(answer.statusCode(), answer.headers()::firstValue, answer.body()));
    }

    private List<String> recordedWithoutMessageAndParam() {
        return withoutMessageAndParam(view.of(
                recorded.status(),
                recorded::header,
                recorded.json().orElseThrow().toString()));
    }

    private static List<String> withoutMessageAndParam(List<String> facts) {
        return facts.stream()
                .filter(f -> !f.contains("error.message = ") && !f.contains("error.param = "))
                .toList();
    }

    private static JsonObject error(HttpResponse<String> answer) {
        return SimHttp.json(answer.body()).getJsonObject("error");
    }

    private static String message(HttpResponse<String> answer) {
        return error(answer).getString("message");
    }
}
