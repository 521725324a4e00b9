package grid.gateway.app;

import grid.gateway.app.access.AccessLines;
import grid.gateway.app.access.AccessLogParts;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.app.trace.Tracing;
import grid.gateway.enginesim.ApiSurface;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.enginesim.RecordedRequest;
import grid.gateway.routing.time.ManualClock;
import grid.gateway.routing.time.MonotonicClock;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * The test harness every test that needs a running gateway shares (app's tests, and conformance's through app's test
 * jar): the real gateway on 127.0.0.1 (ports 0), configured from YAML text through the real loader or from a config
 * file it reads itself, with a manual clock and a seeded random source, usually in front of simulated engines
 * ({@link #engine}). Every request it sends has a deadline, so a gateway that never answers fails the test instead of
 * hanging it. Closes the gateway, then whatever it was given to close.
 */
public final class GatewayHarness implements AutoCloseable {
    /** The model every simulated engine of {@link #engine} serves. */
    public static final String MODEL = "demo-model";
    /** How long a request, or a condition of {@link #await}, may take before the test fails. */
    public static final Duration DEADLINE = Duration.ofSeconds(20);
    /** The wall-clock time every access log line gives as its request's arrival. */
    public static final Instant WALL_TIME = Instant.parse("2026-01-02T03:04:05.678Z");

    /** The bearer token {@link #routeExplain} enables {@code POST /route/explain} with. */
    public static final String EXPLAIN_TOKEN = "explain-token-of-the-tests-0123";

    private static final Pattern STORED_ID = Pattern.compile("\"id\"\\s*:\\s*\"resp_([0-9a-f]+)\"");
    private static final long SEED = 7;

    /** The gateway's clock (unless started by {@link #onSystemClock}, when nothing reads it). */
    public final ManualClock clock = new ManualClock();
    /** The access log lines (a test's, never the process's stdout); request ids made here are req-1, req-2, … */
    public final AccessLines accessLog = new AccessLines();

    private final AtomicLong requestIds = new AtomicLong();
    public final GatewayServer server;
    public final HttpClient client;
    private final Path dir;
    private final List<AutoCloseable> alsoClose;
    private final String scheme;
    /** The admin port as it was bound, for {@link #ready()} while the gateway stops (when the server forgets it). */
    private final int adminPort;

    /** Starts a gateway from {@code yaml}; {@link #close()} also closes {@code alsoClose} (engines), in order. */
    public GatewayHarness(Path dir, String yaml, AutoCloseable... alsoClose) {
        this(dir, yaml, Optional.empty(), alsoClose);
    }

    /**
     * A gateway whose client listener serves TLS ({@code server.tls} in {@code yaml}), reached with {@code tls};
     * empty: plain HTTP.
     */
    public GatewayHarness(Path dir, String yaml, Optional<SSLContext> tls, AutoCloseable... alsoClose) {
        this(
                dir,
                new Start(SEED, false, tls, false),
                runtime -> GatewayServer.start(load(dir, yaml), runtime),
                alsoClose);
    }

    private GatewayHarness(
            Path dir, Start start, Function<GatewayRuntime, GatewayServer> starter, AutoCloseable... alsoClose) {
        this.dir = dir;
        this.alsoClose = List.of(alsoClose);
        this.client = client(start.tls());
        this.scheme = start.tls().isPresent() ? "https" : "http";
        MonotonicClock runtimeClock = start.systemClock() ? SystemMonotonicClock.INSTANCE : clock;
        this.server = starter.apply(runtime(start, runtimeClock)
                .withAccess(new AccessLogParts(
                        accessLog, () -> "req-" + requestIds.incrementAndGet(), InstantSource.fixed(WALL_TIME))));
        this.adminPort = server.adminPort();
    }

    private static final String LOOPBACK = "127.0.0.1";

    /**
     * How a harness starts its gateway: the seed of its random source, its clock, its client's TLS, and whether the
     * client listener binds the config's {@code server.host} (else both listeners bind 127.0.0.1).
     */
    private record Start(long seed, boolean systemClock, Optional<SSLContext> tls, boolean configHost) {}

    private static GatewayRuntime runtime(Start start, MonotonicClock clock) {
        SplittableRandom random = new SplittableRandom(start.seed());
        return start.configHost()
                ? new GatewayRuntime(
                        clock,
                        random,
                        Optional.empty(),
                        EndpointTable.standard(),
                        AccessLogParts.production(),
                        Optional.of(LOOPBACK),
                        Tracing.EXPORT_TIMEOUT)
                : new GatewayRuntime(clock, random, LOOPBACK);
    }

    /**
     * A gateway from {@code yaml} whose client listener binds its {@code server.host} (a loopback address, such as
     * {@code ::1}); the admin listener binds 127.0.0.1.
     */
    public static GatewayHarness onConfigHost(Path dir, String yaml, AutoCloseable... alsoClose) {
        return new GatewayHarness(
                dir,
                new Start(SEED, false, Optional.empty(), true),
                r -> GatewayServer.start(load(dir, yaml), r),
                alsoClose);
    }

    /** The client a harness sends with: HTTP/1.1, a 5 s connect timeout, trusting {@code tls} when given. */
    public static HttpClient client(Optional<SSLContext> tls) {
        HttpClient.Builder builder =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5));
        tls.ifPresent(builder::sslContext);
        return builder.build();
    }

    /** A gateway from {@code yaml} whose exports of spans each end by {@code exportTimeout}. */
    public static GatewayHarness exportingWithin(
            Path dir, String yaml, Duration exportTimeout, AutoCloseable... alsoClose) {
        return new GatewayHarness(
                dir,
                new Start(SEED, false, Optional.empty(), false),
                r -> GatewayServer.start(load(dir, yaml), r.withTraceExportTimeout(exportTimeout)),
                alsoClose);
    }

    /** A gateway from {@code yaml} whose random source is seeded with {@code seed}. */
    public static GatewayHarness seeded(Path dir, String yaml, long seed, AutoCloseable... alsoClose) {
        return new GatewayHarness(
                dir,
                new Start(seed, false, Optional.empty(), false),
                r -> GatewayServer.start(load(dir, yaml), r),
                alsoClose);
    }

    /**
     * Starts a gateway that reads {@code configFile} itself, as in production, so that {@code server.reloadNow()}
     * re-reads it.
     */
    public static GatewayHarness fromFile(Path configFile, AutoCloseable... alsoClose) {
        return fromFile(configFile, SEED, alsoClose);
    }

    /** {@link #fromFile(Path, AutoCloseable...)} with the random source seeded with {@code seed}. */
    public static GatewayHarness fromFile(Path configFile, long seed, AutoCloseable... alsoClose) {
        return fromFile(configFile, new Start(seed, false, Optional.empty(), false), alsoClose);
    }

    /** A gateway reading {@code configFile} on the system clock, for a test that needs its load window to move. */
    public static GatewayHarness onSystemClock(Path configFile, long seed, AutoCloseable... alsoClose) {
        return fromFile(configFile, new Start(seed, true, Optional.empty(), false), alsoClose);
    }

    private static GatewayHarness fromFile(Path configFile, Start start, AutoCloseable... alsoClose) {
        return new GatewayHarness(
                configFile.toAbsolutePath().getParent(),
                start,
                runtime -> GatewayServer.start(configFile, runtime),
                alsoClose);
    }

    /** A simulated engine named {@code name} serving {@value #MODEL}, instant, its ids seeded by its name. */
    public static EngineSimulator engine(String name) {
        return engineSettings(name).start();
    }

    /** The settings of {@link #engine}, for a test that adds to them. */
    public static EngineSettings.Builder engineSettings(String name) {
        return engineSettings(name, EngineSettings.builder().instant());
    }

    /**
     * {@code settings} named {@code name}, serving {@value #MODEL}, its ids seeded by its name, answering as vLLM does
     * plus the two OpenAI features vLLM lacks that the gateway forwards and these tests exercise: the Conversations
     * API and {@code DELETE} of a stored response.
     */
    public static EngineSettings.Builder engineSettings(String name, EngineSettings.Builder settings) {
        return settings.name(name)
                .model(MODEL)
                .random(new SplittableRandom(name.hashCode()))
                .api(ApiSurface::withOpenAiAdditions);
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
        return load(dir, yaml);
    }

    private static GatewaySnapshot load(Path dir, String yaml) {
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
        return oneSite(url);
    }

    /**
     * The sites block of one site, east, with one cluster, east-a, at {@code url} serving demo-model, its queue
     * scraped from {@code url}'s own {@code /metrics} (no {@code metrics_url}).
     */
    public static String oneScrapedEngine(String url) {
        return """
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [demo-model]
                """.formatted(url);
    }

    /**
     * The sites block of one site named {@code site}: a cluster per engine, named by its key, serving demo-model, its
     * queue scraped from the engine's own {@code /metrics}.
     */
    public static String site(String site, Map<String, EngineSimulator> engines) {
        Map<String, String> urls = new LinkedHashMap<>();
        engines.forEach((name, engine) -> urls.put(name, engine.url()));
        return siteAt(site, urls);
    }

    /** {@link #site(String, Map)} with each cluster's url given: name → url, in the map's order. */
    public static String siteAt(String site, Map<String, String> urls) {
        StringBuilder sites = new StringBuilder("  - name: ").append(site).append("\n    clusters:\n");
        urls.forEach((name, url) -> sites.append("      - name: ")
                .append(name)
                .append("\n        url: ")
                .append(url)
                .append("\n        models: [")
                .append(MODEL)
                .append("]\n"));
        return sites.toString();
    }

    /**
     * The sites block of one site, east, with a cluster a url: east-a, east-b, ... serving demo-model, each with an
     * unreachable metrics endpoint, so that every cluster stays unmeasured and admitted.
     */
    public static String oneSite(String... urls) {
        StringBuilder sites = new StringBuilder("  - name: east\n    clusters:\n");
        for (int i = 0; i < urls.length; i++) {
            sites.append("      - name: east-")
                    .append((char) ('a' + i))
                    .append("\n        url: ")
                    .append(urls[i])
                    .append("\n        metrics_url: http://127.0.0.1:1/metrics\n        models: [demo-model]\n");
        }
        return sites.toString();
    }

    /**
     * A second cluster of site east, east-b, serving demo-model and draining: it admits nothing, so every request
     * still goes to east-a, but the model is served by two clusters and so is keyed (a model one cluster serves is
     * not: its keys could change no decision). Appended to {@link #oneSite} or {@link #oneScrapedEngine}.
     */
    public static String drainingTwin() {
        return """
                      - name: east-b
                        url: http://127.0.0.1:9
                        models: [demo-model]
                        draining: true
                """;
    }

    /**
     * The {@code server} lines (indented two spaces) that enable {@code POST /route/explain} with
     * {@link #EXPLAIN_TOKEN}, whose token file this writes into {@code dir}.
     */
    public static String routeExplain(Path dir) {
        try {
            Path file = Files.writeString(dir.resolve("explain-token"), EXPLAIN_TOKEN + "\n");
            return "  route_explain:\n    enabled: true\n    token_file: " + file.toAbsolutePath() + "\n";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code POST /route/explain{query}} of this gateway's admin port, with {@link #EXPLAIN_TOKEN}. */
    public HttpRequest.Builder explainRequest(String query, String body) {
        return HttpRequest.newBuilder(adminUri("/route/explain" + query))
                .header("Authorization", "Bearer " + EXPLAIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body));
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

    /** POSTs {@code body} as JSON to {@code path}, with {@code headers} (name, value, name, value, ...) added. */
    public HttpResponse<String> post(String path, String body, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request.build());
    }

    public HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET().build());
    }

    /** Sends {@code request} with this harness's client, within {@link #DEADLINE} unless it sets its own timeout. */
    public HttpResponse<String> send(HttpRequest request) {
        return send(client, request);
    }

    /** Sends {@code request} with {@code client}, within {@link #DEADLINE} unless it sets its own timeout. */
    public static HttpResponse<String> send(HttpClient client, HttpRequest request) {
        HttpRequest timed = request.timeout().isPresent()
                ? request
                : HttpRequest.newBuilder(request, (name, value) -> true)
                        .timeout(DEADLINE)
                        .build();
        try {
            return client.send(timed, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The admin port's {@code /metrics} text. */
    public String metrics() {
        return send(HttpRequest.newBuilder(adminUri("/metrics")).build()).body();
    }

    /** The value of the first sample {@code name{...}} whose labels contain {@code labelText}; 0 when there is none. */
    public double metric(String name, String labelText) {
        return metric(metrics(), name, labelText);
    }

    /** {@link #metric(String, String)} read from the Prometheus text {@code metrics}. */
    public static double metric(String metrics, String name, String labelText) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labelText)) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /** The admin port's readiness as {@code "<status> <body>"}, or {@code "unreachable: ..."} once it is closed. */
    public String ready() {
        try {
            HttpResponse<String> answer = client.send(
                    HttpRequest.newBuilder(adminUri("/health/ready"))
                            .timeout(Duration.ofSeconds(5))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return answer.statusCode() + " " + answer.body();
        } catch (IOException e) {
            return "unreachable: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private URI adminUri(String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }

    /** Whether a connection to {@code port} on 127.0.0.1 is refused (nothing listens there). */
    public static boolean refuses(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            return false;
        } catch (ConnectException refused) {
            return true;
        } catch (IOException other) {
            return false;
        }
    }

    /**
     * Waits until {@code condition} holds, failing after {@link #DEADLINE}: for what the gateway does on threads of its
     * own (a drain, a sharing stream), which no clock of the test's drives.
     */
    public static void await(String what, BooleanSupplier condition) {
        await(what, DEADLINE, condition);
    }

    /** {@link #await(String, BooleanSupplier)} with a deadline of its own. */
    public static void await(String what, Duration deadline, BooleanSupplier condition) {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not within " + deadline + ": " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
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
