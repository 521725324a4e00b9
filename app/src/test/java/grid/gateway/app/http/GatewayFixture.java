package grid.gateway.app.http;

import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.SplittableRandom;
import javax.net.ssl.SSLContext;

/**
 * Test fixture: a gateway on 127.0.0.1 (ports 0) in front of fake engines, configured from YAML text through the
 * real loader, with a manual clock and a seeded random source.
 */
final class GatewayFixture implements AutoCloseable {
    final ManualClock clock = new ManualClock();
    final GatewayServer server;
    final HttpClient client;
    private final Path dir;
    private final String scheme;

    GatewayFixture(Path dir, String yaml) {
        this(dir, yaml, Optional.empty());
    }

    /** A gateway whose client listener serves TLS ({@code server.tls} in {@code yaml}), reached with {@code tls}. */
    GatewayFixture(Path dir, String yaml, Optional<SSLContext> tls) {
        this.dir = dir;
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
        tls.ifPresent(builder::sslContext);
        this.client = builder.build();
        this.scheme = tls.isPresent() ? "https" : "http";
        this.server = GatewayServer.start(
                snapshot(yaml), new GatewayServer.Runtime(clock, new SplittableRandom(7), "127.0.0.1"));
    }

    GatewaySnapshot snapshot(String yaml) {
        try {
            Path file = Files.createTempFile(dir, "gateway", ".yaml");
            Files.writeString(file, yaml);
            return ConfigLoader.load(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The sites block of one site, east, with one cluster, east-a, at {@code url} serving demo-model; its metrics
     * endpoint is unreachable, so the cluster stays unmeasured and admitted.
     */
    static String oneEngine(String url) {
        return """
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        metrics_url: http://127.0.0.1:1/metrics
                        models: [demo-model]
                """.formatted(url);
    }

    /** A config with the given sites block (YAML, indented two spaces under {@code sites:}). */
    static String config(String gatewayExtra, String sites) {
        return config("", gatewayExtra, sites);
    }

    /** A config with keys added to the server and gateway blocks (each indented two spaces) and the sites block. */
    static String config(String serverExtra, String gatewayExtra, String sites) {
        return """
                server:
                  port: 0
                  admin_port: 0
                  max_body_bytes: 4096
                %s
                gateway:
                  site: east
                %s
                sites:
                %s
                """.formatted(serverExtra, gatewayExtra, sites);
    }

    URI uri(String pathAndQuery) {
        return URI.create(scheme + "://127.0.0.1:" + server.port() + pathAndQuery);
    }

    HttpResponse<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .build());
    }

    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String metrics() {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                        .build())
                .body();
    }

    @Override
    public void close() {
        server.close();
    }
}
