package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The connection after an answer, on real sockets: vLLM closes it after refusing a request while validating it
 * (answered with {@code Connection: close}), and {@link Fault#resetAfterAnswer()} makes a keep-alive answer the
 * connection's last, so that the next request a pooled client sends on it fails before any byte of answer.
 */
class ConnectionResetTest {
    private static final String SHORT = "{\"prompt\":\"hello\",\"max_tokens\":2}";
    /** 200 simulated tokens, beyond a context of 64. */
    private static final String TOO_LONG = "{\"prompt\":\"" + "word".repeat(200) + "\",\"max_tokens\":8}";

    private EngineSimulator engine =
            EngineSettings.builder().maxModelLen(64).instant().start();

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void promptBeyondTheContext_vllmsValidation400_thenTheConnectionIsClosed() throws Exception {
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post("/v1/completions", TOO_LONG, "");
            RawConnection.Answer refused = connection.read();

            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.headers()).containsEntry("connection", "close");
            JsonObject error = SimHttp.json(refused.body()).getJsonObject("error");
            assertThat(error.getString("type")).isEqualTo("BadRequestError");
            assertThat(error.getString("param")).isEqualTo("input_tokens");
            assertThat(error.getInt("code")).isEqualTo(400);
            assertThat(error.getString("message"))
                    .isEqualTo("This model's maximum context length is 64 tokens. However, you requested 8 output"
                            + " tokens and your prompt contains at least 57 input tokens, for a total of at least 65"
                            + " tokens. Please reduce the length of the input prompt or the number of requested"
                            + " output tokens. (parameter=input_tokens, value=57)");

            connection.postIgnoringReset("/v1/completions", SHORT);
            assertThat(connection.endsWithoutAnswer()).isTrue();
        }
        assertThat(engine.requestCount()).isEqualTo(1);
    }

    @Test
    void maxTokensBeyondTheContext_vllmsValidation400() throws Exception {
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post(
                    "/v1/chat/completions",
                    "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]," + "\"max_tokens\":5000}",
                    "");
            RawConnection.Answer refused = connection.read();

            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.headers()).containsEntry("connection", "close");
            JsonObject error = SimHttp.json(refused.body()).getJsonObject("error");
            assertThat(error.getString("message"))
                    .isEqualTo("max_tokens=5000 cannot be greater than max_model_len=max_total_tokens=64. Please"
                            + " request fewer output tokens. (parameter=max_tokens, value=5000)");
            assertThat(error.getString("param")).isEqualTo("max_tokens");
        }
    }

    @Test
    void storeRefusal_keepsTheConnectionAsVllmDoes() throws Exception {
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post("/v1/responses/resp_unknown/cancel", "", "");
            RawConnection.Answer unknown = connection.read();
            connection.post("/v1/completions", SHORT, "");
            RawConnection.Answer next = connection.read();

            assertThat(unknown.status()).isEqualTo(404);
            assertThat(unknown.headers()).doesNotContainEntry("connection", "close");
            assertThat(next.status()).isEqualTo(200);
        }
    }

    @Test
    void withoutTheReset_theRefusalKeepsTheConnection() throws Exception {
        engine.close();
        engine = EngineSettings.builder()
                .maxModelLen(64)
                .api(ApiSurface.VLLM.withoutResetAfterValidationError())
                .instant()
                .start();
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post("/v1/completions", TOO_LONG, "");
            RawConnection.Answer refused = connection.read();
            connection.post("/v1/completions", SHORT, "");
            RawConnection.Answer next = connection.read();

            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.headers()).doesNotContainEntry("connection", "close");
            assertThat(next.status()).isEqualTo(200);
        }
    }

    @Test
    void resetAfterAnswer_keepAliveAnswerThenTheNextRequestFindsTheConnectionReset() throws Exception {
        engine.failNext(1, Fault.status(400), Fault.resetAfterAnswer());
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post("/v1/completions", SHORT, "");
            RawConnection.Answer refused = connection.read();

            assertThat(refused.status()).isEqualTo(400);
            // Nothing tells the client the connection is done: it reuses it, as a pooled client would.
            assertThat(refused.headers()).doesNotContainEntry("connection", "close");
            connection.post("/v1/completions", SHORT, "");
            assertThat(connection.endsWithoutAnswer()).isTrue();
        }
        assertThat(engine.connectionResets()).isEqualTo(1);
        // The reset request never reached the engine; a fresh connection is served.
        assertThat(engine.requestCount()).isEqualTo(1);
        assertThat(new SimHttp(engine).post("/v1/completions", SHORT).statusCode())
                .isEqualTo(200);
    }

    @Test
    void resetAfterAnswer_onAValidation400_answersKeepAliveThenResets() throws Exception {
        engine.failNext(1, Fault.resetAfterAnswer());
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post("/v1/completions", TOO_LONG, "");
            RawConnection.Answer refused = connection.read();
            connection.post("/v1/completions", SHORT, "");

            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.headers()).doesNotContainEntry("connection", "close");
            assertThat(connection.endsWithoutAnswer()).isTrue();
        }
        assertThat(engine.connectionResets()).isEqualTo(1);
    }

    @Test
    void resetAfterAnswer_fromTheFaultHeader() throws Exception {
        try (RawConnection connection = new RawConnection(engine)) {
            connection.post("/v1/completions", SHORT, FaultHeader.NAME + ": status=400,reset-after-answer=1\r\n");
            RawConnection.Answer refused = connection.read();
            connection.post("/v1/completions", SHORT, "");

            assertThat(refused.status()).isEqualTo(400);
            assertThat(connection.endsWithoutAnswer()).isTrue();
        }
        assertThat(engine.connectionResets()).isEqualTo(1);
    }

    @Test
    void resetAfterAnswer_aPooledClientsNextRequestFailsBeforeAnyAnswer() throws Exception {
        engine.failNext(1, Fault.resetAfterAnswer());
        HttpClient pooled =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest post = HttpRequest.newBuilder(java.net.URI.create(engine.url() + "/v1/completions"))
                .timeout(SimHttp.TIMEOUT)
                .POST(HttpRequest.BodyPublishers.ofString(SHORT))
                .build();

        HttpResponse<String> first = pooled.send(post, HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> pooled.send(post, HttpResponse.BodyHandlers.ofString()))
                .isInstanceOf(IOException.class);
        assertThat(engine.connectionResets()).isEqualTo(1);
        // A fresh connection of the same client is served again.
        assertThat(pooled.send(post, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
    }
}
