package grid.gateway.app.http;

import static io.helidon.http.Method.POST;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.endpoint.Endpoint;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.routing.keyer.ApiDialect;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A new API path is one row of the endpoint table: a gateway whose table has two more rows serves them through the
 * whole request flow (405 and its Allow, the error shape, keying, pinning by the id in the path, tagging the
 * answer), while the standard table's gateway refuses the same paths.
 */
class NewEndpointRowIntegrationTest {
    private static final String TAGGED = "resp_east." + ClusterDigest.of("east-a") + "..abc";
    private static final EndpointTable MORE = EndpointTable.standard()
            .with(Endpoint.at("/v1/messages/batches").keyed(ApiDialect.MESSAGES).anthropicErrors())
            .with(Endpoint.at("/v1/responses/{response_id}/fork", POST).tagged());
    private static final String MESSAGES_BODY =
            "{\"model\":\"%s\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

    @TempDir
    Path dir;

    private ScriptedUpstream engine;
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private Path file;
    private GatewayServer extended;

    @BeforeEach
    void start() throws IOException {
        engine = new ScriptedUpstream();
        file = dir.resolve("gateway.yaml");
        Files.writeString(file, GatewayHarness.config("", GatewayHarness.oneEngine(engine.url())));
        extended = GatewayServer.start(ConfigLoader.load(file), runtime(MORE));
    }

    private static GatewayRuntime runtime(EndpointTable table) {
        return new GatewayRuntime(new ManualClock(), new SplittableRandom(3), Optional.of("127.0.0.1"), table);
    }

    @AfterEach
    void stop() throws IOException {
        extended.close();
        engine.close();
    }

    @Test
    void keyedRow_forwardedWithItsBody() throws Exception {
        HttpResponse<String> answer =
                send(extended, "POST", "/v1/messages/batches", MESSAGES_BODY.formatted("demo-model"));

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(engine.take().head).startsWith("POST /v1/messages/batches HTTP/1.1\r\n");
    }

    @Test
    void keyedRow_modelNobodyServes_404InAnthropicShape() throws Exception {
        // Only a keyed endpoint reads the model: an unkeyed one would be routed on load to the one cluster.
        HttpResponse<String> answer = send(extended, "POST", "/v1/messages/batches", MESSAGES_BODY.formatted("nobody"));

        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.body()).startsWith("{\"type\":\"error\"").contains("not_found_error");
        assertThat(engine.exchanges).isEmpty();
    }

    @Test
    void keyedRow_methodItDoesNotDefine_405WithAllowInAnthropicShape() throws Exception {
        HttpResponse<String> answer = send(extended, "DELETE", "/v1/messages/batches", "");

        assertThat(answer.statusCode()).isEqualTo(405);
        assertThat(answer.headers().firstValue("Allow")).contains("POST");
        assertThat(answer.body()).startsWith("{\"type\":\"error\"");
    }

    @Test
    void idRow_pinnedByThePathIdStrippedAndAnswerTagged() throws Exception {
        String forked = "{\"id\":\"resp_forked\",\"object\":\"response\"}";
        engine.script = e -> e.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + forked.length() + "\r\n\r\n" + forked);

        HttpResponse<String> answer = send(extended, "POST", "/v1/responses/" + TAGGED + "/fork", "{}");

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(engine.take().head).startsWith("POST /v1/responses/resp_abc/fork HTTP/1.1\r\n");
        assertThat(answer.body()).contains("\"resp_east." + ClusterDigest.of("east-a") + "..forked\"");
    }

    @Test
    void idRow_unknownId_404AndNothingForwarded() throws Exception {
        HttpResponse<String> answer = send(extended, "POST", "/v1/responses/resp_east.00000000..abc/fork", "{}");

        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.body()).contains("No stored response or conversation has that id.");
        assertThat(engine.exchanges).isEmpty();
    }

    @Test
    void idRow_methodItDoesNotDefine_405WithAllowInOpenAiShape() throws Exception {
        HttpResponse<String> answer = send(extended, "GET", "/v1/responses/" + TAGGED + "/fork", "");

        assertThat(answer.statusCode()).isEqualTo(405);
        assertThat(answer.headers().firstValue("Allow")).contains("POST");
        assertThat(answer.body()).startsWith("{\"error\":");
    }

    @Test
    void standardTable_samePaths_notServed() throws Exception {
        // One gateway at a time: the meters live in one process-wide registry.
        extended.close();
        try (GatewayServer standard = GatewayServer.start(ConfigLoader.load(file), runtime(EndpointTable.standard()))) {
            HttpResponse<String> batches =
                    send(standard, "POST", "/v1/messages/batches", MESSAGES_BODY.formatted("demo-model"));
            HttpResponse<String> fork = send(standard, "POST", "/v1/responses/" + TAGGED + "/fork", "{}");

            assertThat(batches.statusCode()).isEqualTo(404);
            assertThat(batches.body()).startsWith("{\"type\":\"error\"").contains("not served here");
            assertThat(fork.statusCode()).isEqualTo(404);
            assertThat(fork.body()).contains("not served here");
            assertThat(engine.exchanges).isEmpty();
        }
    }

    private HttpResponse<String> send(GatewayServer server, String method, String path, String body)
            throws IOException, InterruptedException {
        HttpRequest.BodyPublisher publisher =
                body.isEmpty() ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body);
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .method(method, publisher)
                        .header("Content-Type", "application/json")
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
