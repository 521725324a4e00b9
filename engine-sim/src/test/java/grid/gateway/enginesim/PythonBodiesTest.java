package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.json.JsonObject;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bodies vLLM reads because Python's {@code json.loads} reads them (UTF-16 and UTF-32, {@code NaN} and
 * {@code Infinity}, surrogates, duplicated names, big integers), answered over HTTP as vLLM answers them: served where
 * vLLM serves them, refused in pydantic's or vLLM's words where it refuses the value, never refused as undecodable.
 */
class PythonBodiesTest {
    private static final String CHAT =
            "{\"model\":\"tiny-llama\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";

    private final EngineSimulator engine =
            EngineSettings.builder().model("tiny-llama").instant().start();
    private final SimHttp http = new SimHttp(engine);

    @AfterEach
    void stop() {
        engine.close();
    }

    private HttpResponse<String> post(String path, byte[] body) throws Exception {
        return http.send(http.request(path)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .header("Content-Type", "application/json")
                .build());
    }

    private static String message(HttpResponse<String> answer) {
        return SimHttp.json(answer).getJsonObject("error").getString("message");
    }

    @ParameterizedTest
    @ValueSource(strings = {"UTF-16LE", "UTF-16BE", "UTF-16", "UTF-32LE", "UTF-32BE", "UTF-32 with BOM"})
    void chat_bodyInUtf16OrUtf32_servedAsJsonDetectEncodingReadsIt(String encoding) throws Exception {
        String text = CHAT.replace("hi", "h\u00e9llo \uD83D\uDE00") + "}";
        byte[] body = encoding.equals("UTF-32 with BOM")
                ? encode("\uFEFF" + text, Charset.forName("UTF-32BE"))
                : encode(text, Charset.forName(encoding)); // Java's UTF-16 writes a big-endian mark

        HttpResponse<String> answer = post("/v1/chat/completions", body);

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(SimHttp.json(answer).getString("object")).isEqualTo("chat.completion");
    }

    private static byte[] encode(String text, Charset charset) {
        ByteBuffer bytes = charset.encode(text);
        byte[] out = new byte[bytes.remaining()];
        bytes.get(out);
        return out;
    }

    @Test
    void chat_nanAndInfinitySamplingParameters_servedAsVllmAcceptsTheFloats() throws Exception {
        HttpResponse<String> answer = http.post(
                "/v1/chat/completions", CHAT + ",\"temperature\":NaN,\"top_k\":-1,\"presence_penalty\":-Infinity}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }

    @Test
    void responses_nanTemperature_echoedAsNull_theAnswerStaysJson() throws Exception {
        HttpResponse<String> answer =
                http.post("/v1/responses", "{\"model\":\"tiny-llama\",\"input\":\"hi\",\"temperature\":Infinity}");

        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        JsonObject response = SimHttp.json(answer);
        assertThat(response.isNull("temperature")).isTrue();
        assertThat(response.getJsonNumber("top_p").doubleValue()).isEqualTo(1.0);
    }

    @Test
    void chat_surrogates_escapedAloneOrEncodedInUtf8_served() throws Exception {
        byte[] encoded = (CHAT.replace("hi", "h--i") + "}").getBytes(StandardCharsets.UTF_8);
        int at = new String(encoded, StandardCharsets.UTF_8).indexOf("--");
        encoded[at] = (byte) 0xED; // U+D800 in the three bytes Python's surrogatepass reads
        encoded[at + 1] = (byte) 0xA0;
        byte[] withThird = new byte[encoded.length + 1];
        System.arraycopy(encoded, 0, withThird, 0, at + 2);
        withThird[at + 2] = (byte) 0x80;
        System.arraycopy(encoded, at + 2, withThird, at + 3, encoded.length - at - 2);

        HttpResponse<String> escaped = http.post("/v1/chat/completions", CHAT.replace("hi", "h\\ud800i") + "}");
        HttpResponse<String> raw = post("/v1/chat/completions", withThird);

        assertThat(escaped.statusCode()).as(escaped.body()).isEqualTo(200);
        assertThat(raw.statusCode()).as(raw.body()).isEqualTo(200);
    }

    @Test
    void refusedBody_quotesALoneSurrogateAsPythonsReprDoes() throws Exception {
        HttpResponse<String> answer =
                http.post("/v1/chat/completions", "{\"model\":\"tiny-llama\",\"x\":\"a\\ud800\\u200b\"}");

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(message(answer)).contains("'input': {'model': 'tiny-llama', 'x': 'a\\ud800\\u200b'}");
    }

    @Test
    void duplicatedNames_theLastCounts() throws Exception {
        HttpResponse<String> lastKnown =
                http.post("/v1/chat/completions", CHAT.replace("{\"model\"", "{\"model\":\"other\",\"model\"") + "}");
        HttpResponse<String> lastUnknown = http.post("/v1/chat/completions", CHAT + ",\"model\":\"other\"}");

        assertThat(lastKnown.statusCode()).as(lastKnown.body()).isEqualTo(200);
        assertThat(lastUnknown.statusCode()).isEqualTo(404);
    }

    @Test
    void maxTokens_pastTheRangeOfAnInt_refusedAsBeyondTheContext_neverWrapped() throws Exception {
        // 2^32 + 1: read into a 32-bit int it would wrap to 1 and be served.
        HttpResponse<String> answer = http.post(
                "/v1/completions", "{\"model\":\"tiny-llama\",\"prompt\":\"hi\"," + "\"max_tokens\":4294967297}");
        HttpResponse<String> negative = http.post(
                "/v1/completions", "{\"model\":\"tiny-llama\",\"prompt\":\"hi\"," + "\"max_tokens\":-4294967295}");

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(message(answer)).startsWith("max_tokens=").contains("cannot be greater than max_model_len");
        assertThat(SimHttp.json(answer).getJsonObject("error").getString("param"))
                .isEqualTo("max_tokens");
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(message(negative)).startsWith("max_tokens must be at least 1");
    }

    @Test
    void maxTokens_floats_asPydanticReadsThemIntoAnInt() throws Exception {
        String prefix = "{\"model\":\"tiny-llama\",\"prompt\":\"hi\",\"max_tokens\":";

        HttpResponse<String> whole = http.post("/v1/completions", prefix + "4.0}");
        HttpResponse<String> exponent = http.post("/v1/completions", prefix + "4e0}");
        HttpResponse<String> fraction = http.post("/v1/completions", prefix + "4.5}");
        HttpResponse<String> nan = http.post("/v1/completions", prefix + "NaN}");
        HttpResponse<String> infinite = http.post("/v1/completions", prefix + "-Infinity}");

        assertThat(whole.statusCode()).as(whole.body()).isEqualTo(200);
        assertThat(exponent.statusCode()).as(exponent.body()).isEqualTo(200);
        assertThat(fraction.statusCode()).isEqualTo(400);
        assertThat(message(fraction))
                .contains("{'type': 'int_from_float', 'loc': ('body', 'max_tokens'), 'msg': 'Input should be a"
                        + " valid integer, got a number with a fractional part', 'input': 4.5}");
        assertThat(message(nan))
                .contains("{'type': 'finite_number', 'loc': ('body', 'max_tokens'), 'msg': 'Input should be a"
                        + " finite number', 'input': nan}");
        assertThat(message(infinite)).contains("'type': 'finite_number'").contains("'input': -inf}");
    }

    @Test
    void integerPastPythonsDigitLimit_unparsable_oneDigitLessIsRead() throws Exception {
        String atLimit = CHAT + ",\"x\":" + "9".repeat(PythonJson.MAX_INT_DIGITS) + "}";
        String past = CHAT + ",\"x\":" + "9".repeat(PythonJson.MAX_INT_DIGITS + 1) + "}";

        assertThat(http.post("/v1/chat/completions", atLimit).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = http.post("/v1/chat/completions", past);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(message(refused)).isEqualTo(JsonText.UNPARSABLE);
    }

    @Test
    void nesting_atPythonsLimitRead_pastItUnparsable() throws Exception {
        int depth = PythonJson.MAX_DEPTH - 1; // the body itself is one level
        String at = CHAT + ",\"x\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
        String past = CHAT + ",\"x\":" + "[".repeat(depth + 1) + "]".repeat(depth + 1) + "}";

        assertThat(http.post("/v1/chat/completions", at).statusCode()).isEqualTo(200);
        HttpResponse<String> refused = http.post("/v1/chat/completions", past);
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(message(refused)).isEqualTo(JsonText.UNPARSABLE);
    }

    @Test
    void emptyBody_notParsed_theBodyIsMissing() throws Exception {
        HttpResponse<String> answer = post("/v1/chat/completions", new byte[0]);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(message(answer))
                .startsWith("1 validation error:\n  {'type': 'missing', 'loc': ('body',), 'msg': 'Field required',"
                        + " 'input': None}");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"model\":\"tiny-llama\",}|Expecting property name enclosed in double quotes|22",
                "{\"model\" \"tiny-llama\"}|Expecting ':' delimiter|9",
                "{\"model\":\"tiny-llama\" \"x\":1}|Expecting ',' delimiter|22",
                "{\"model\":\"t\\qx\"}|Invalid \\\\escape|11",
                "{\"model\":\"\\u12x4\"}|Invalid \\\\uXXXX escape|11",
                "{\"model\":\"t\u0001\"}|Invalid control character at|11",
                "{\"model\":\"t|Unterminated string starting at|9",
                "{\"model\":[1,]}|Expecting value|12",
                "{\"model\":\"\u00e9\uD83D\uDE00\",x}|Expecting property name enclosed in double quotes|14"
            })
    void malformedText_pythonsWordsAtPythonsPosition(String row) throws Exception {
        String[] parts = row.split("\\|");
        String words = parts[1].contains("'") ? '"' + parts[1] + '"' : "'" + parts[1] + "'"; // as Python quotes

        HttpResponse<String> answer = http.post("/v1/chat/completions", parts[0]);

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(message(answer))
                .contains("{'type': 'json_invalid', 'loc': ('body', " + parts[2] + "), 'msg': 'JSON decode error',"
                        + " 'input': {}, 'ctx': {'error': " + words + "}}");
    }
}
