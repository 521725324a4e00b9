package grid.gateway.app.observe;

import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.routing.time.ManualClock;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Test fixture: the real gateway (ports 0 on 127.0.0.1) in front of two minimal engines at two sites, with traffic
 * that makes every lazily created series appear (an answer per status), so that a scrape of the admin
 * {@code /metrics} shows every metric family the gateway exports. One per test class; {@link #close()} stops all.
 */
final class LiveGateway implements AutoCloseable {
    private static final String CHAT =
            "{\"model\":\"demo-model\",\"messages\":[{\"role\":\"user\",\"content\":\"%s\"}]}";

    private final WebServer east = engine();
    private final WebServer west = engine();
    private final GatewayServer gateway;
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    LiveGateway(Path dir) throws IOException {
        Path config = dir.resolve("gateway.yaml");
        Files.writeString(config, """
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                sites:
                  - name: east
                    clusters: [{name: east-a, url: "http://127.0.0.1:%d", models: [demo-model]}]
                  - name: west
                    clusters: [{name: west-a, url: "http://127.0.0.1:%d", models: [demo-model]}]
                """.formatted(east.port(), west.port()));
        gateway = GatewayServer.start(
                ConfigLoader.load(config),
                new GatewayServer.Runtime(new ManualClock(), new SplittableRandom(7), "127.0.0.1"));
    }

    /** Sends keyed, unkeyed and pinned requests through the client port, then scrapes the admin port. */
    String trafficThenScrape() {
        gateway.scrapeNow();
        // Two candidates and a 1 KiB prompt: an affinity outcome, a confirmation into a prefix LRU, cached tokens.
        for (int i = 0; i < 3; i++) {
            post("/v1/chat/completions", CHAT.formatted("x".repeat(1024)));
        }
        post("/v1/chat/completions", "not json"); // grid_keyer_no_keys_total{reason="invalid_json"}
        send(HttpRequest.newBuilder(uri(gateway.port(), "/v1/responses/resp_gone.00000000..abc"))
                .GET()
                .build()); // grid_route_pinned_total{outcome="not_found"}
        return send(HttpRequest.newBuilder(uri(gateway.adminPort(), "/metrics"))
                        .GET()
                        .build())
                .body();
    }

    private void post(String path, String body) {
        send(HttpRequest.newBuilder(uri(gateway.port(), path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .build());
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** An engine that reports an empty queue and answers every request 200 with cached tokens in its usage. */
    private static WebServer engine() {
        return WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .routing(r -> r.any(LiveGateway::answer))
                .build()
                .start();
    }

    private static void answer(ServerRequest request, ServerResponse response) {
        if (request.path().rawPath().equals("/metrics")) {
            response.send("vllm:num_requests_waiting 0\n");
            return;
        }
        if (request.content().hasEntity()) {
            request.content().consume();
        }
        response.header(HeaderValues.CONTENT_TYPE_JSON)
                .send("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"usage\":{\"prompt_tokens\":300,"
                        + "\"prompt_tokens_details\":{\"cached_tokens\":256}}}");
    }

    @Override
    public void close() {
        gateway.close();
        east.stop();
        west.stop();
    }
}
