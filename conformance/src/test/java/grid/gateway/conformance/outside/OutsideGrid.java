package grid.gateway.conformance.outside;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.enginesim.ApiSurface;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A grid as an outside test builds it: simulated engines (vLLM's surface plus the Conversations API), a config file
 * and a tag key file written by hand, and the packaged jar started from the environment alone ({@code
 * GRID_GATEWAY_CONFIG}, {@code GRID_GATEWAY_LOG_FORMAT=json}, no argument). Site {@code east} (local) has {@code
 * east-a} and {@code east-b} serving {@value #MODEL}, {@code east-dead} (nothing listens at its port) serving
 * {@value #DEAD_MODEL} and {@code east-drain} (draining) serving {@value #DRAINED_MODEL}; site {@code west} has {@code
 * west-a} serving {@value #WEST_MODEL}; {@value #RETRY_MODEL} is served by {@code east-c} and by {@code east-refusing},
 * whose URL refuses connections while its queue depth is read from {@code west-a}'s engine (so it is measured). Bodies over {@value #MAX_BODY} bytes are refused. Requests and scrapes have
 * deadlines; queue depths are scraped every 50 ms.
 */
final class OutsideGrid implements AutoCloseable {
    static final String MODEL = "demo-model";
    static final String DEAD_MODEL = "dead-model";
    static final String DRAINED_MODEL = "drained-model";
    static final String WEST_MODEL = "west-model";
    static final String RETRY_MODEL = "retry-model";
    static final int MAX_BODY = 65536;
    /** The tag key file's lines: the first signs, both verify. */
    static final String SIGNING_KEY = "outside-signing-key-0123456789";

    static final String OLD_KEY = "outside-old-key-abcdefghijklmnop";
    /** What Prometheus 2 asks a target for. */
    static final String PROMETHEUS_ACCEPT = "application/openmetrics-text;version=1.0.0;q=0.5,"
            + "application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2";

    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)(?: \\S+)?");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    final Map<String, EngineSimulator> engines = new LinkedHashMap<>();
    final OutsideJar jar;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    /** One series of a scrape. */
    record Sample(String name, Map<String, String> labels, double value) {}

    OutsideGrid(Path dir) throws IOException {
        for (String name : List.of("east-a", "east-b", "east-c", "west-a")) {
            engines.put(
                    name,
                    EngineSettings.builder()
                            .name(name)
                            .instant()
                            .random(new SplittableRandom(name.hashCode()))
                            .api(ApiSurface.VLLM.withOpenAiAdditions())
                            .model(
                                    switch (name) {
                                        case "west-a" -> WEST_MODEL;
                                        case "east-c" -> RETRY_MODEL;
                                        default -> MODEL;
                                    })
                            .start());
        }
        try {
            Path key = Files.writeString(dir.resolve("tag-key"), "\n" + SIGNING_KEY + "\n  " + OLD_KEY + "  \n");
            Path config = Files.writeString(dir.resolve("gateway.yaml"), config(key));
            jar = OutsideJar.serve(Map.of("GRID_GATEWAY_CONFIG", config.toString(), "GRID_GATEWAY_LOG_FORMAT", "json"));
        } catch (IOException | RuntimeException | Error e) {
            engines.values().forEach(EngineSimulator::close);
            throw e;
        }
        for (String cluster :
                List.of("east/east-a", "east/east-b", "east/east-c", "east/east-refusing", "west/west-a")) {
            await(cluster + " measured", () -> !Double.isNaN(value("grid_cluster_queue_depth", "cluster", cluster)));
        }
    }

    private String config(Path key) {
        return """
                server:
                  port: 0
                  admin_port: 0
                  host: 127.0.0.1
                  admin_host: 127.0.0.1
                  max_body_bytes: %d
                gateway:
                  site: east
                  tag_key_path: %s
                  access_log: "off"
                sites:
                  - name: east
                    clusters:
                      - {name: east-a, url: "%s", models: [%s]}
                      - {name: east-b, url: "%s", models: [%s]}
                      - {name: east-dead, url: "http://127.0.0.1:9", models: [%s]}
                      - {name: east-drain, url: "http://127.0.0.1:9", models: [%s], draining: true}
                      - {name: east-c, url: "%s", models: [%s]}
                      - {name: east-refusing, url: "http://127.0.0.1:9", metrics_url: "%s/metrics", models: [%s]}
                  - name: west
                    clusters:
                      - {name: west-a, url: "%s", models: [%s]}
                plugins:
                  grid_site_route:
                    load: {poll_interval_ms: 50}
                """.formatted(
                        MAX_BODY,
                        key,
                        engines.get("east-a").url(),
                        MODEL,
                        engines.get("east-b").url(),
                        MODEL,
                        DEAD_MODEL,
                        DRAINED_MODEL,
                        engines.get("east-c").url(),
                        RETRY_MODEL,
                        engines.get("west-a").url(),
                        RETRY_MODEL,
                        engines.get("west-a").url(),
                        WEST_MODEL);
    }

    /** Sends {@code method path} with a JSON body (or none) to the client port. */
    HttpResponse<String> send(String method, String path, String json) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + jar.port() + path))
                .timeout(DEADLINE)
                .method(
                        method,
                        json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            request.header("Content-Type", "application/json");
        }
        return http(request.build());
    }

    HttpResponse<String> admin(String path, String accept) {
        return http(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + jar.adminPort() + path))
                .timeout(DEADLINE)
                .header("Accept", accept)
                .build());
    }

    private HttpResponse<String> http(HttpRequest request) {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Every sample of the admin {@code /metrics} page as Prometheus 2 asks for it. */
    List<Sample> scrape() {
        HttpResponse<String> page = admin("/metrics", PROMETHEUS_ACCEPT);
        assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
        List<Sample> samples = new ArrayList<>();
        for (String line : page.body().split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("a sample line: " + line).isTrue();
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                }
                assertThat(end).as("labels of " + line).isEqualTo(m.group(2).length());
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
        return samples;
    }

    /**
     * A scrape on which {@code settled} holds, polled until it does or the deadline passes (then the last one): the
     * counters an answer's end updates (its usage read) may lag the client's read of that end.
     */
    List<Sample> scrapeUntil(Predicate<List<Sample>> settled) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        List<Sample> page = scrape();
        while (!settled.test(page) && System.nanoTime() - end < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            page = scrape();
        }
        return page;
    }

    /** The sum of the series of {@code name} whose labels include {@code labels} (alternating names and values). */
    static double sum(List<Sample> samples, String name, String... labels) {
        double total = 0;
        for (Sample s : samples) {
            boolean all = s.name().equals(name);
            for (int i = 0; all && i < labels.length; i += 2) {
                all = labels[i + 1].equals(s.labels().get(labels[i]));
            }
            if (all) {
                total += s.value();
            }
        }
        return total;
    }

    double value(String name, String... labels) {
        List<Sample> matching = scrape().stream()
                .filter(s -> s.name().equals(name))
                .filter(s -> {
                    for (int i = 0; i < labels.length; i += 2) {
                        if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                            return false;
                        }
                    }
                    return true;
                })
                .toList();
        return matching.size() == 1 ? matching.getFirst().value() : Double.NaN;
    }

    /** Makes {@code cluster}'s engine report {@code depth} and waits until the gateway's windowed depth shows it. */
    void queue(String cluster, int depth) {
        engines.get(cluster).setQueueDepth(depth);
        await(
                cluster + " queue depth " + depth,
                () -> value("grid_cluster_queue_depth", "cluster", "east/" + cluster) == depth);
    }

    /** The request counts of every engine now. */
    Map<String, Integer> counts() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        engines.forEach((name, engine) -> counts.put(name, engine.requestCount()));
        return counts;
    }

    /** The engines whose request count grew since {@code before}. */
    List<String> grew(Map<String, Integer> before) {
        return engines.entrySet().stream()
                .filter(e -> e.getValue().requestCount() > before.get(e.getKey()))
                .map(Map.Entry::getKey)
                .toList();
    }

    static JsonObject json(HttpResponse<String> answer) {
        return json(answer.body());
    }

    static JsonObject json(String text) {
        return Json.createReader(new StringReader(text)).readObject();
    }

    void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("no " + what + " within " + DEADLINE + "; the jar's stderr:\n"
                        + String.join("\n", jar.stderr()));
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    @Override
    public void close() {
        try {
            jar.close();
        } finally {
            engines.values().forEach(EngineSimulator::close);
        }
    }
}
