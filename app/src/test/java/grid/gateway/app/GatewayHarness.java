package grid.gateway.app;

import grid.gateway.app.access.AccessLines;
import grid.gateway.app.access.AccessLogParts;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * The test harness every app test that needs a running gateway shares: the real gateway on 127.0.0.1 (ports 0),
 * configured from YAML text through the real loader, with a manual clock and a seeded random source, usually in
 * front of simulated engines ({@link #engine}). Closes the gateway, then whatever it was given to close.
 */
public final class GatewayHarness implements AutoCloseable {
    /** The model every simulated engine of {@link #engine} serves. */
    public static final String MODEL = "demo-model";

    private static final Pattern STORED_ID = Pattern.compile("\"id\"\\s*:\\s*\"resp_([0-9a-f]+)\"");

    /** The wall-clock time every access log line gives as its request's arrival. */
    public static final Instant WALL_TIME = Instant.parse("2026-01-02T03:04:05.678Z");

    public final ManualClock clock = new ManualClock();
    /** The access log lines (a test's, never the process's stdout); request ids made here are req-1, req-2, … */
    public final AccessLines accessLog = new AccessLines();

    private final AtomicLong requestIds = new AtomicLong();
    public final GatewayServer server;
    public final HttpClient client;
    private final Path dir;
    private final List<AutoCloseable> alsoClose;
    private final String scheme;

    /** Starts a gateway from {@code yaml}; {@link #close()} also closes {@code alsoClose} (engines), in order. */
    public GatewayHarness(Path dir, String yaml, AutoCloseable... alsoClose) {
        this(dir, yaml, Optional.empty(), alsoClose);
    }

    /**
     * A gateway whose client listener serves TLS ({@code server.tls} in {@code yaml}), reached with {@code tls};
     * empty: plain HTTP.
     */
    public GatewayHarness(Path dir, String yaml, Optional<SSLContext> tls, AutoCloseable... alsoClose) {
        this.dir = dir;
        this.alsoClose = List.of(alsoClose);
        this.client = client(tls);
        this.scheme = tls.isPresent() ? "https" : "http";
        this.server = GatewayServer.start(snapshot(yaml), runtime());
    }

    private GatewayHarness(Path configFile, AutoCloseable... alsoClose) {
        this.dir = configFile.toAbsolutePath().getParent();
        this.alsoClose = List.of(alsoClose);
        this.client = client(Optional.empty());
        this.scheme = "http";
        this.server = GatewayServer.start(configFile, runtime());
    }

    private static HttpClient client(Optional<SSLContext> tls) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
        tls.ifPresent(builder::sslContext);
        return builder.build();
    }

    /**
     * Starts a gateway that reads {@code configFile} itself, as in production, so that {@code server.reloadNow()}
     * re-reads it.
     */
    public static GatewayHarness fromFile(Path configFile, AutoCloseable... alsoClose) {
        return new GatewayHarness(configFile, alsoClose);
    }

    private GatewayRuntime runtime() {
        return new GatewayRuntime(clock, new SplittableRandom(7), "127.0.0.1")
                .withAccess(new AccessLogParts(
                        accessLog, () -> "req-" + requestIds.incrementAndGet(), InstantSource.fixed(WALL_TIME)));
    }

    /** A simulated engine named {@code name} serving {@value #MODEL}, instant, its ids seeded by its name. */
    public static EngineSimulator engine(String name) {
        return engineSettings(name).start();
    }

    /** The settings of {@link #engine}, for a test that adds to them. */
    public static EngineSettings.Builder engineSettings(String name) {
        return EngineSettings.builder().name(name).model(MODEL).instant().random(new SplittableRandom(name.hashCode()));
    }

    /** The next request {@code engine} recorded, waiting up to 10 s. */
    public static RecordedRequest take(EngineSimulator engine) {
        try {
            return engine.takeRequest(Duration.ofSeconds(10))
                    .orElseThrow(() -> new AssertionError(engine.name() + " received no request"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Stores a response on {@code engine} directly (not through a gateway) and returns its id without the
     * {@code resp_} prefix, for a tagged id whose 200 can only come from that engine.
     */
    public static String storedResponse(EngineSimulator engine) {
        return storedResponse(engine, client(Optional.empty()));
    }

    /** {@link #storedResponse(EngineSimulator)} through {@code client} (one that trusts an https engine). */
    public static String storedResponse(EngineSimulator engine, HttpClient client) {
        String body = send(
                        client,
                        HttpRequest.newBuilder(URI.create(engine.url() + "/v1/responses"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"model\":\"" + MODEL + "\",\"input\":\"hi\"}"))
                                .build())
                .body();
        Matcher id = STORED_ID.matcher(body);
        if (!id.find()) {
            throw new AssertionError(engine.name() + " stored no response: " + body);
        }
        return id.group(1);
    }

    /** Reads {@code yaml} through the real config loader (for {@code server.apply}). */
    public GatewaySnapshot snapshot(String yaml) {
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
    public static String oneEngine(String url) {
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
    public static String config(String gatewayExtra, String sites) {
        return config("", gatewayExtra, sites);
    }

    /** A config with keys added to the server and gateway blocks (each indented two spaces) and the sites block. */
    public static String config(String serverExtra, String gatewayExtra, String sites) {
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

    public URI uri(String pathAndQuery) {
        return URI.create(scheme + "://127.0.0.1:" + server.port() + pathAndQuery);
    }

    public HttpResponse<String> post(String path, String body) {
        return send(HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json")
                .build());
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    public HttpResponse<String> send(HttpRequest request) {
        return send(client, request);
    }

    private static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The admin port's {@code /metrics} text. */
    public String metrics() {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                        .build())
                .body();
    }

    @Override
    public void close() {
        server.close();
        for (AutoCloseable closeable : alsoClose) {
            try {
                closeable.close();
            } catch (Exception e) {
                throw new IllegalStateException("closing " + closeable, e);
            }
        }
    }
}
