package grid.gateway.enginesim;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/** Test client for a simulator: real sockets, HTTP/1.1, JSON in and out. */
final class SimHttp {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT)
            .build();
    private final String base;

    SimHttp(EngineSimulator simulator) {
        this.base = simulator.url();
    }

    HttpResponse<String> post(String path, String body) throws IOException, InterruptedException {
        return client.send(postRequest(path, body), HttpResponse.BodyHandlers.ofString());
    }

    CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
        return client.sendAsync(postRequest(path, body), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<Stream<String>> postLines(String path, String body) throws IOException, InterruptedException {
        return client.send(postRequest(path, body), HttpResponse.BodyHandlers.ofLines());
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return client.sendAsync(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> delete(String path) throws IOException, InterruptedException {
        return client.send(request(path).DELETE().build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(TIMEOUT);
    }

    private HttpRequest postRequest(String path, String body) {
        return request(path)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    static JsonObject json(HttpResponse<String> response) {
        return json(response.body());
    }

    static JsonObject json(String text) {
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }
}
