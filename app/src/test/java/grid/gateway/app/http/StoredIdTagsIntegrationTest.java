package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.GatewayServer;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.tag.ClusterDigest;
import grid.gateway.routing.tag.TagKeyRing;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile stored-id tags through the whole gateway with a tag key (docs/reliability-checklist.md D 48, 49, 52, 53, 64): every id
 * that does not name a cluster of the grid under a valid mac gets the one same 404, byte for byte, and reaches no
 * engine; the key, the salts clients send and the macs never show in logs, metrics or error bodies.
 */
class StoredIdTagsIntegrationTest {
    private static final String KEY = "tag-key-Zq7VxW2pLm9Rt4Yb";
    private static final String SALT = "tenant-salt-Hj3Kd9Qw";
    private static final String DIGEST = ClusterDigest.of("east-a");
    private static final String URL_SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~";

    @TempDir
    Path dir;

    private final EngineSimulator engine = GatewayHarness.engine("east-a");
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final List<String> logs = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (logs) {
                logs.add(record.getLoggerName() + " " + record.getLevel() + " " + record.getMessage() + " "
                        + java.util.Arrays.toString(record.getParameters()) + " " + record.getThrown());
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Path config;
    private Path keyFile;
    private GatewayHarness harness;
    private GatewayServer server;

    @BeforeEach
    void start() throws Exception {
        Logger gateway = Logger.getLogger("grid.gateway");
        gateway.setLevel(Level.ALL);
        capture.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(capture);
        keyFile = dir.resolve("tag-key");
        Files.writeString(keyFile, KEY + "\n");
        config = dir.resolve("gateway.yaml");
        Files.writeString(config, GatewayHarness.config("""
                  tag_key_path: %s
                """.formatted(keyFile), """
                  - name: east
                    clusters:
                      - name: east-a
                        url: %s
                        models: [demo-model]
                """.formatted(engine.url())));
        harness = GatewayHarness.fromFile(config);
        server = harness.server;
    }

    @AfterEach
    void stop() {
        harness.close();
        engine.close();
        Logger.getLogger("").removeHandler(capture);
        Logger.getLogger("grid.gateway").setLevel(null);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A request with one fixed X-Request-Id, so that every 404 body, which carries it, can be byte-identical. */
    private HttpRequest.Builder at(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
                .header("X-Request-Id", "hostile-ids");
    }

    @Test
    void tenThousandHostileIds_oneByteIdenticalNotFound_neverForwarded() throws Exception {
        String reference = send(at("/v1/responses/resp_plain")).body();
        TagKeyRing ring = TagKeyRing.parse(KEY);
        // Four clients of 2,500 ids each, every id drawn from its own seeded stream.
        List<java.util.concurrent.Future<?>> clients = new ArrayList<>();
        try (var threads = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < 4; c++) {
                SplittableRandom random = new SplittableRandom(20261130L + c);
                clients.add(threads.submit(() -> {
                    for (int i = 0; i < 2_500; i++) {
                        String id = hostileId(random, ring, i % 8);
                        HttpResponse<String> answer = i % 10 == 0
                                ? send(at("/v1/responses")
                                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"demo-model\","
                                                + "\"input\":\"hi\",\"previous_response_id\":\"" + id + "\"}")))
                                : send(at((i % 3 == 0 ? "/v1/conversations/" : "/v1/responses/") + id));
                        assertThat(answer.statusCode()).as(id).isEqualTo(404);
                        assertThat(answer.body()).as(id).isEqualTo(reference);
                    }
                    return null;
                }));
            }
            for (var done : clients) {
                done.get();
            }
        }
        assertThat(engine.requestCount()).isZero();
        // The real tag still works, so the 404s are not an engine or config failure.
        String created = send(at("/v1/responses")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"demo-model\",\"input\":\"hi\"}")))
                .body();
        GatewayHarness.take(engine); // the create itself
        String stored = created.replaceAll("(?s).*\"id\":\"resp_east\\.[^\"]*\\.([0-9a-f]+)\".*", "$1");
        String signed = "resp_east." + DIGEST + "." + ring.sign("east", DIGEST) + "." + stored;
        assertThat(created).contains("\"id\":\"" + signed + "\"");
        assertThat(send(at("/v1/responses/" + signed)).statusCode()).isEqualTo(200);
        assertThat(GatewayHarness.take(engine).target()).isEqualTo("/v1/responses/resp_" + stored);
    }

    /** One hostile id of {@code kind}: forged, truncated, of another kind, huge, left the grid, or noise. */
    private static String hostileId(SplittableRandom random, TagKeyRing ring, int kind) {
        String valid = "resp_east." + DIGEST + "." + ring.sign("east", DIGEST) + ".abc" + random.nextInt(1000);
        return switch (kind) {
            case 0 -> "resp_east." + DIGEST + "." + hex(random, 16) + ".abc"; // forged mac
            case 1 -> flipOneMacDigit(random, valid); // one hex digit of a valid mac flipped
            // Truncated before its id part: the mac binds only site and cluster, so a cut inside the id would be a
            // valid tag for another id of the same cluster.
            case 2 -> valid.substring(0, 5 + random.nextInt(valid.lastIndexOf('.') - 3));
            case 3 ->
                List.of("msg_", "chatcmpl-", "Resp_", "RESP_", "file-", "item_").get(random.nextInt(6))
                        + valid.substring(5); // another kind's prefix
            case 4 -> "resp_" + noise(random, 513 + random.nextInt(2_000)); // over 512 chars
            case 5 ->
                "resp_west." + ClusterDigest.of("west-a") + "." + ring.sign("west", ClusterDigest.of("west-a"))
                        + ".abc"; // a valid mac for a cluster not in the grid
            case 6 -> "resp_east." + hex(random, 8) + "." + hex(random, 16) + ".x"; // unknown cluster, forged
            default -> "resp_" + noise(random, 1 + random.nextInt(80)); // noise, tags with dots included
        };
    }

    private static String flipOneMacDigit(SplittableRandom random, String tag) {
        int at = tag.indexOf('.', tag.indexOf('.') + 1) + 1 + random.nextInt(16);
        char c = tag.charAt(at);
        char flipped = Character.forDigit((Character.digit(c, 16) + 1 + random.nextInt(15)) % 16, 16);
        return tag.substring(0, at) + flipped + tag.substring(at + 1);
    }

    private static String hex(SplittableRandom random, int digits) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < digits; i++) {
            text.append(Character.forDigit(random.nextInt(16), 16));
        }
        return text.toString();
    }

    private static String noise(SplittableRandom random, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append(URL_SAFE.charAt(random.nextInt(URL_SAFE.length())));
        }
        return text.toString().replace("..", ".x");
    }

    @Test
    void keySaltsAndMacs_neverInLogsMetricsOrErrorBodies() throws Exception {
        TagKeyRing ring = TagKeyRing.parse(KEY);
        String mac = ring.sign("east", DIGEST);
        List<String> seen = new ArrayList<>();
        String salted = "{\"model\":\"demo-model\",\"cache_salt\":\"" + SALT + "\",\"messages\":[{\"role\":\"user\","
                + "\"content\":\"" + "x".repeat(2_000) + "\"}]}";
        seen.add(send(at("/v1/chat/completions").POST(HttpRequest.BodyPublishers.ofString(salted)))
                .body());
        seen.add(send(at("/v1/chat/completions")
                        .POST(HttpRequest.BodyPublishers.ofString(salted.replace("demo-model", "nope"))))
                .body());
        seen.add(send(at("/v1/messages").POST(HttpRequest.BodyPublishers.ofString(salted.replace("x", "y" + SALT))))
                .body());
        seen.add(send(at("/v1/responses/resp_east." + DIGEST + "." + mac + ".gone"))
                .body());
        seen.add(send(at("/v1/responses/resp_east." + DIGEST + "." + hex(new SplittableRandom(1), 16) + ".f"))
                .body());
        seen.add(send(at("/v1/responses")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"demo-model\"," + "\"cache_salt\":\""
                                + SALT + "\",\"previous_response_id\":\"resp_" + SALT + "\"}")))
                .body());
        // A refused key reload and an oversized body are logged or answered too.
        Files.writeString(keyFile, "short\n" + KEY + "\n");
        server.reloadNow();
        seen.add(send(at("/v1/completions")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\":\"" + SALT + "x".repeat(5_000) + "\"}")))
                .body());
        String metrics = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics")))
                .body();
        assertThat(metrics).contains("grid_config_reloads_total{result=\"refused\"");
        String everything;
        synchronized (logs) {
            everything = String.join("\n", logs) + "\n" + metrics + "\n" + String.join("\n", seen);
        }
        assertThat(logs).as("the refused reload was logged").isNotEmpty();
        assertThat(everything).doesNotContain(KEY).doesNotContain(SALT).doesNotContain(mac);
    }
}
