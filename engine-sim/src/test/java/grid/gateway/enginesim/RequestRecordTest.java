package grid.gateway.enginesim;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RequestRecordTest {
    private EngineSimulator engine;
    private SimHttp http;

    @BeforeEach
    void start() {
        engine = EngineSettings.builder().name("record").instant().start();
        http = new SimHttp(engine);
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    @Test
    void takeRequest_recordsMethodRawTargetHeadersAndBody() throws Exception {
        String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"h\u00e9llo\"}]}";
        http.send(http.request("/v1/chat/completions?x=%2F&y=a+b")
                .header("X-Custom", "one")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build());

        RecordedRequest recorded = engine.takeRequest(SimHttp.TIMEOUT).orElseThrow();

        assertThat(recorded.sequence()).isZero();
        assertThat(recorded.method()).isEqualTo("POST");
        assertThat(recorded.target()).isEqualTo("/v1/chat/completions?x=%2F&y=a+b");
        assertThat(recorded.path()).isEqualTo("/v1/chat/completions");
        assertThat(recorded.query()).isEqualTo("x=%2F&y=a+b");
        assertThat(recorded.header("x-custom")).contains("one");
        assertThat(recorded.header("X-CUSTOM")).contains("one");
        assertThat(recorded.headers()).containsKey("content-type");
        assertThat(recorded.body()).isEqualTo(body);
        assertThat(recorded.bodyBytes()).hasSize(body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    @Test
    void takeRequest_inArrivalOrder_failuresAndUnknownPathsIncluded() throws Exception {
        engine.failNext(1, Fault.status(500));
        http.post("/v1/completions", "{\"prompt\":\"x\"}");
        http.get("/v1/nowhere");
        http.delete("/v1/responses/resp_1");

        assertThat(engine.requestCount()).isEqualTo(3);
        assertThat(engine.takeRequest(SimHttp.TIMEOUT).orElseThrow().path()).isEqualTo("/v1/completions");
        assertThat(engine.takeRequest(SimHttp.TIMEOUT).orElseThrow().path()).isEqualTo("/v1/nowhere");
        RecordedRequest third = engine.takeRequest(SimHttp.TIMEOUT).orElseThrow();
        assertThat(third.method()).isEqualTo("DELETE");
        assertThat(third.body()).isEmpty();
        assertThat(engine.takeRequest(Duration.ZERO)).isEmpty();
    }

    @Test
    void simulator_urlAndName_fromItsSettings() {
        assertThat(engine.url()).isEqualTo("http://127.0.0.1:" + engine.port());
        assertThat(engine.port()).isPositive();
        assertThat(engine.name()).isEqualTo("record");
        assertThat(engine.models()).containsExactly("demo-model");
        assertThat(engine).hasToString("EngineSimulator[record 127.0.0.1:" + engine.port() + "]");
    }
}
