package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The headers every vLLM answer carries (testdata/vllm/*.json), read off the simulator with a fixed wall clock. */
class ServerHeadersTest {
    private static final Instant SIXTH_OF_DECEMBER = Instant.parse("2026-12-06T10:30:15Z");

    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder()
                .name("headers")
                .maxModelLen(64)
                .wallClock(() -> SIXTH_OF_DECEMBER)
                .instant()
                .start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void date_isAnImfFixdateOfTheWallClock_withATwoDigitDay() throws Exception {
        HttpResponse<String> answer = http.get("/health");

        assertThat(answer.headers().allValues("date")).containsExactly("Sun, 06 Dec 2026 10:30:15 GMT");
    }

    @Test
    void everyAnswer_namesUvicornAndVariesOnOrigin_streamsWithoutCacheControl() throws Exception {
        HttpResponse<String> stream = http.post(
                "/v1/chat/completions",
                "{\"model\":\"demo-model\",\"stream\":true,\"max_tokens\":2,"
                        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
        HttpResponse<String> unknown = http.get("/server_info");

        for (HttpResponse<String> answer : java.util.List.of(stream, unknown)) {
            assertThat(answer.headers().allValues("server")).containsExactly("uvicorn");
            assertThat(answer.headers().allValues("vary")).containsExactly("Origin");
        }
        assertThat(stream.headers().firstValue("cache-control")).isEmpty();
    }

    @Test
    void aPromptBeyondTheContext_isAnsweredWithoutVary() throws Exception {
        HttpResponse<String> answer =
                http.post("/v1/completions", "{\"model\":\"demo-model\",\"prompt\":\"" + "word ".repeat(200) + "\"}");

        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.headers().allValues("server")).containsExactly("uvicorn");
        assertThat(answer.headers().firstValue("vary")).isEmpty();
    }
}
