package grid.gateway.conformance.pods;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import grid.gateway.enginesim.EnginePods;
import grid.gateway.enginesim.EngineSettings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster of two pods behind one DNS name, end to end: two engine-simulator pods on 127.0.0.1 and 127.0.0.2 (one
 * port), a hosts file naming both {@code pods.grid.test}, and the packaged gateway as a child process reading that
 * hosts file ({@code -Djdk.net.hosts.file}: the JDK reads it at its first lookup, so it has to be a
 * JVM of its own). The cluster's depth is the sum over both addresses; with one pod's scrape failing (503: reached,
 * no page) it is partly measured, and that silent pod counts with its latest depth, never as an idle pod.
 */
class PodsDnsTest {
    private static final Path JAR = Path.of("../app/target/grid-gateway.jar");
    private static final Pattern PORT = Pattern.compile("grid-gateway (listening|admin) port=(\\d+)");
    private static final Duration DEADLINE = Duration.ofSeconds(20);
    private static final String CLUSTER = "east/east-a";

    private final HttpClient client = HttpClient.newHttpClient();
    private final CompletableFuture<Integer> adminPort = new CompletableFuture<>();
    private final List<String> output = new java.util.concurrent.CopyOnWriteArrayList<>();
    private EnginePods pods;
    private Process gateway;

    @AfterEach
    void stop() throws InterruptedException {
        if (gateway != null) {
            gateway.destroy();
            if (!gateway.waitFor(10, TimeUnit.SECONDS)) {
                gateway.destroyForcibly();
            }
        }
        if (pods != null) {
            pods.close();
        }
    }

    @Test
    void metricsDns_sumsEveryAddress_aSilentPodCountsWithItsLatestDepth(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR + " (package the app module first)");
        assumeTrue(ProcessHandle.current().info().command().isPresent(), "the java binary is unknown");
        pods = EnginePods.start(
                EngineSettings.builder().name("east-a").instant().build(), List.of("127.0.0.1", "127.0.0.2"));
        pods.pod(0).setQueueDepth(3);
        pods.pod(1).setQueueDepth(4);
        Path hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.1 pods.grid.test\n127.0.0.2 pods.grid.test\n");
        Path config = Files.writeString(dir.resolve("gateway.yaml"), """
                server: {port: 0, admin_port: 0, host: 127.0.0.1, admin_host: 127.0.0.1}
                gateway: {site: east}
                sites:
                  - name: east
                    clusters:
                      - name: east-a
                        url: http://127.0.0.1:%d
                        models: [demo-model]
                        metrics_dns: http://pods.grid.test:%d/metrics
                plugins:
                  grid_site_route:
                    load: {poll_interval_ms: 50, window_secs: 1, dns_refresh_secs: 1}
                """.formatted(pods.port(), pods.port()));
        startGateway(hosts, config);

        await("depth 3 + 4 from both addresses", () -> gauge("grid_cluster_queue_depth", "") == 7);
        assertThat(gauge("grid_cluster_pods", ",state=\"measured\"")).isEqualTo(2);
        assertThat(gauge("grid_cluster_partly_measured", "")).isZero();
        assertThat(pods.pod(1).metricsScrapeCount()).as("127.0.0.2 was scraped").isPositive();

        pods.pod(1).failScrapes(true);

        await("partly measured", () -> gauge("grid_cluster_partly_measured", "") == 1);
        pods.pod(0).setQueueDepth(5);
        await(
                "127.0.0.1's new depth and 127.0.0.2's latest, once the window forgot the older sums",
                () -> gauge("grid_cluster_queue_depth", "") == 9);
        assertThat(gauge("grid_cluster_pods", ",state=\"unmeasured\"")).isEqualTo(1);
    }

    private void startGateway(Path hosts, Path config) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        gateway = new ProcessBuilder(
                        java,
                        "-Djdk.net.hosts.file=" + hosts,
                        "-jar",
                        JAR.toAbsolutePath().toString(),
                        "--config",
                        config.toString())
                .redirectErrorStream(true)
                .start();
        Process p = gateway;
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    output.add(line);
                    Matcher m = PORT.matcher(line);
                    if (m.matches() && m.group(1).equals("admin")) {
                        adminPort.complete(Integer.parseInt(m.group(2)));
                    }
                }
            } catch (IOException ended) {
                // the process is gone
            } finally {
                adminPort.completeExceptionally(new IllegalStateException("the gateway ended before its admin port"));
            }
        });
    }

    /** The gauge {@code name} of the cluster, with {@code moreLabels} (each {@code ,key="value"}); NaN if absent. */
    private double gauge(String name, String moreLabels) {
        try {
            URI metrics = URI.create("http://127.0.0.1:" + adminPort.get(30, TimeUnit.SECONDS) + "/metrics");
            String text = client.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
                    .body();
            Matcher m = Pattern.compile("(?m)^" + name + "\\{([^}]*)} (\\S+)$").matcher(text);
            while (m.find()) {
                String labels = m.group(1);
                if (labels.contains("cluster=\"" + CLUSTER + "\"")
                        && (moreLabels.isEmpty() || labels.contains(moreLabels.substring(1)))) {
                    return Double.parseDouble(m.group(2));
                }
            }
            return Double.NaN;
        } catch (Exception unreachable) {
            return Double.NaN;
        }
    }

    private void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline)
                    .as("within " + DEADLINE + ": " + what + "; the gateway said:\n" + String.join("\n", output))
                    .isNegative();
            Thread.sleep(50);
        }
    }
}
