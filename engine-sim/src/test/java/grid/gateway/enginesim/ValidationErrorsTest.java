package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every body vLLM's request model refuses gets the answer recorded for one of them ({@code testdata/vllm/
 * error_bad_json.json}, a body without {@code messages}): FastAPI raises the same validation error for a missing
 * field, a field of the wrong type, a body that is not an object and text that is not JSON, and vLLM's one handler
 * for it answers 400 typed {@code "Bad Request"} with no param, {@code vary: Origin}, {@code Connection: close}, and
 * pydantic's report, ending with the frame of vLLM's handler and the request line, as the message.
 */
class ValidationErrorsTest {
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

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"model\":\"tiny-llama\"}",
                "{\"model\":\"tiny-llama\",\"messages\":",
                "not json",
                "{\"model\":\"tiny-llama\",\"messages\":[]} xx",
                "[]",
                "{\"model\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                "{\"model\":\"tiny-llama\",\"messages\":\"hi\"}",
                "{\"model\":\"tiny-llama\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":\"yes\"}"
            })
    void refusedBody_theRecordedAnswer(String body) throws Exception {
        HttpResponse<String> answer = http.post(recorded.path(), body);

        assertThat(withoutMessage(view.of(answer.statusCode(), answer.headers()::firstValue, answer.body())))
                .containsExactlyElementsOf(withoutMessage(view.of(
                        recorded.status(),
                        recorded::header,
                        recorded.json().orElseThrow().toString())));
        assertThat(message(answer.body()))
                .matches(shapeOf(message(recorded.json().orElseThrow().toString())));
    }

    @Test
    void theRecordedBody_theRecordedMessage() throws Exception {
        HttpResponse<String> answer = http.post(recorded.path(), recorded.body().orElseThrow());

        assertThat(message(answer.body()))
                .isEqualTo(message(recorded.json().orElseThrow().toString()));
    }

    /**
     * The recorded message with pydantic's error left open: "1 validation error:", one error naming its type, where
     * in the body, what was wrong and the input, then the recorded frame and request line with the error again.
     */
    private static Pattern shapeOf(String recordedMessage) {
        int frame = recordedMessage.indexOf("\n\n  File ");
        int line = recordedMessage.indexOf(" [", frame);
        String error = "\\{'type': '[a-z_]+', 'loc': \\('body',[^)]*\\), 'msg': '[^']+', 'input': .*\\}";
        return Pattern.compile(
                "1 validation error:\n  " + error + Pattern.quote(recordedMessage.substring(frame, line)) + " \\["
                        + error + "\\]",
                Pattern.DOTALL);
    }

    private static String message(String body) {
        return SimHttp.json(body).getJsonObject("error").getString("message");
    }

    private static List<String> withoutMessage(List<String> facts) {
        return facts.stream().filter(f -> !f.startsWith("error.message")).toList();
    }
}
