package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What the prefix memory learns from an answer. Calls that only count tokens teach
 * nothing; a 2xx whose body breaks before its first byte (the client gets 502/504) keeps nothing confirmed.
 */
class PrefixLearningIntegrationTest {
    private static final String OK = "{\"ok\":true}";

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private GatewayHarness gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    private void start() {
        start(GatewayHarness.drainingTwin());
    }

    private void start(String moreClusters) {
        engine = new ScriptedUpstream();
        gateway = new GatewayHarness(
                dir,
                GatewayHarness.config("", GatewayHarness.oneScrapedEngine(engine.url()) + moreClusters)
                        .replace("max_body_bytes: 4096", "max_body_bytes: 65536"),
                engine);
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + OK.length() + "\r\n\r\n" + OK);
    }

    /** A prompt of about 2 KiB: eight or more blocks. */
    private static String prompt() {
        return "Tell me about the grid. ".repeat(90);
    }

    private static String body(String path) {
        if (path.startsWith("/v1/messages")) {
            return "{\"model\":\"demo-model\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\""
                    + prompt() + "\"}]}";
        }
        if (path.startsWith("/v1/responses")) {
            return "{\"model\":\"demo-model\",\"input\":\"" + prompt() + "\"}";
        }
        return "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt() + "\"}]}";
    }

    private double entries() {
        return gateway.metrics()
                .lines()
                .filter(l -> l.startsWith("grid_prefix_index_entries{cluster=\"east/east-a\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow();
    }

    @ParameterizedTest
    @CsvSource({"/v1/messages/count_tokens, /v1/messages", "/v1/responses/input_tokens, /v1/responses"})
    void countingCalls_routedButTeachNothing(String counting, String generating) throws Exception {
        start();

        HttpResponse<String> counted = gateway.post(counting, body(counting));
        assertThat(counted.statusCode()).isEqualTo(200);
        assertThat(engine.take().head).startsWith("POST " + counting + " ");
        assertThat(entries()).as("no keys learned from " + counting).isZero();

        // The same prompt through the generating endpoint is learned: the keyer did key it.
        assertThat(gateway.post(generating, body(generating)).statusCode()).isEqualTo(200);
        assertThat(entries()).isPositive();
    }

    @Test
    void twoHundredWhoseBodyBreaksBeforeItsFirstByte_keysDropped() throws IOException {
        start();
        String path = "/v1/chat/completions";
        assertThat(gateway.post(path, body(path)).statusCode()).isEqualTo(200);
        double learned = entries();
        assertThat(learned).isPositive();

        engine.script = e -> {
            e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n");
            e.socket.shutdownOutput();
        };
        HttpResponse<String> broken = gateway.post(path, body(path));

        assertThat(broken.statusCode()).isEqualTo(502);
        assertThat(entries()).as("the 2xx's keys are dropped again").isZero();
    }

    @Test
    void modelOneClusterServes_notKeyed_memoryLearnsNothingAndNoKeysNotCounted() throws Exception {
        start("");
        String path = "/v1/chat/completions";

        assertThat(gateway.post(path, body(path)).statusCode()).isEqualTo(200);

        assertThat(engine.take().head).startsWith("POST " + path + " ");
        assertThat(entries())
                .as("keys could change no decision: none made, none learned")
                .isZero();
        assertThat(gateway.metrics()).doesNotContain("one_candidate");
    }
}
