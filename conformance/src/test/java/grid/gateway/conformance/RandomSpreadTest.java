package grid.gateway.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The demo's random spread: each new connection goes to a replica drawn at random, bytes copied both ways. */
class RandomSpreadTest {
    @Test
    void eachConnection_toARandomTarget_answersRelayedWhole() throws Exception {
        EngineSimulator one =
                EngineSettings.builder().instant().name("one").model("m").start();
        EngineSimulator two =
                EngineSettings.builder().instant().name("two").model("m").start();
        try (one;
                two;
                RandomSpread spread = RandomSpread.start(0, List.of(one.port(), two.port()), new SplittableRandom(4))) {
            for (int i = 0; i < 20; i++) {
                // A new client each time: a new connection, as each curl of the demo.
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build();
                HttpResponse<String> answer = client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + spread.port() + "/v1/chat/completions"))
                                .timeout(Duration.ofSeconds(10))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(answer.statusCode()).isEqualTo(200);
                assertThat(answer.body()).contains("chat.completion");
                client.close();
            }
            assertThat(one.requestCount()).isBetween(3, 17);
            assertThat(one.requestCount() + two.requestCount()).isEqualTo(20);
        }
    }
}
