package grid.gateway.conformance.scenario;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.config.ConfigException;
import grid.gateway.app.config.ConfigLoader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged {@code app/target/grid-gateway.jar} as a separate process ({@code java -jar … --config FILE}, with the
 * JDK running the tests), on a real clock and an unseeded random source. Its ports come from the two lines it prints
 * on stdout. A reload rewrites the config file, which the jar's watcher polls every {@value #CONFIG_POLL_MS} ms; the
 * runner then waits, with a deadline, until {@code grid_config_reloads_total} shows the change. Queue depths are
 * scraped every {@value #LOAD_POLL_MS} ms, and a set depth is awaited on {@code grid_cluster_queue_depth}.
 */
final class JarGateway extends GatewayUnderTest {
    /** What the jar lets a scenario control: neither its clock nor its random source. */
    static final Set<String> CAPABILITIES = Set.of("reload", "engine_faults");

    /** The packaged gateway, relative to the conformance module (Maven runs tests there). */
    static final Path JAR = Path.of("../app/target/grid-gateway.jar");

    static final int CONFIG_POLL_MS = 100;
    static final int LOAD_POLL_MS = 50;
    private static final Duration START_DEADLINE = Duration.ofSeconds(30);
    private static final Duration DEADLINE = Duration.ofSeconds(10);
    private static final Pattern PORT = Pattern.compile("grid-gateway (listening|admin) port=(\\d+)");

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private final Path configFile;
    private final Process process;
    private final Thread reader;
    private final Deque<String> output = new ArrayDeque<>();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final CompletableFuture<Integer> adminPort = new CompletableFuture<>();
    private List<Scenario.Site> grid;

    /** Why the jar mode cannot run here, or null when it can. */
    static String unavailable() {
        if (!Files.isRegularFile(JAR)) {
            return "no " + JAR.toAbsolutePath().normalize() + " (package the app module first, e.g. mvn verify)";
        }
        if (ProcessHandle.current().info().command().isEmpty()) {
            return "the java binary running the tests is unknown";
        }
        return null;
    }

    JarGateway(Scenario scenario, Path dir) {
        super(scenario, dir);
        this.configFile = dir.resolve("gateway.yaml");
        Process started = null;
        Thread startedReader = null;
        try {
            startEngines(scenario.grid());
            grid = scenario.grid();
            Files.writeString(configFile, text(scenario.grid(), scenario.gateway(), scenario.plugins()));
            String java = ProcessHandle.current().info().command().orElseThrow();
            started = new ProcessBuilder(
                            java, "-jar", JAR.toAbsolutePath().toString(), "--config", configFile.toString())
                    .redirectErrorStream(true)
                    .start();
            Process p = started;
            startedReader =
                    Thread.ofPlatform().daemon().name("jar-output-" + p.pid()).start(() -> readOutput(p));
            this.process = started;
            this.reader = startedReader;
            awaitPorts();
            // Every cluster measured from the start, so that "unmeasured" never decides a scenario by accident.
            awaitMeasured();
        } catch (IOException e) {
            stop(started, startedReader);
            closeEngines();
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            stop(started, startedReader);
            closeEngines();
            throw e;
        }
    }

    private void readOutput(Process p) {
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                Matcher m = PORT.matcher(line);
                if (m.matches()) {
                    (m.group(1).equals("listening") ? port : adminPort).complete(Integer.parseInt(m.group(2)));
                }
                synchronized (output) {
                    output.addLast(line);
                    if (output.size() > 200) {
                        output.removeFirst();
                    }
                }
            }
        } catch (IOException ended) {
            // the process is gone
        } finally {
            IllegalStateException gone = new IllegalStateException("the jar ended before printing its ports");
            port.completeExceptionally(gone);
            adminPort.completeExceptionally(gone);
        }
    }

    private String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    private void awaitPorts() {
        try {
            port.get(START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            adminPort.get(START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "the jar printed no ports within " + START_DEADLINE + "; its output:\n" + output());
        }
    }

    /** The config text: the scenario's, with a short config poll and a short load poll unless it sets them. */
    private String text(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        Map<String, Object> g = new LinkedHashMap<>(gateway);
        g.putIfAbsent("config_poll_ms", CONFIG_POLL_MS);
        Map<String, Object> p = new LinkedHashMap<>(plugins);
        Map<String, Object> route = map(p.get("grid_site_route"));
        Map<String, Object> load = map(route.get("load"));
        load.putIfAbsent("poll_interval_ms", LOAD_POLL_MS);
        route.put("load", load);
        p.put("grid_site_route", route);
        return yaml(config(grid, g, p));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return value == null ? new LinkedHashMap<>() : new LinkedHashMap<>((Map<String, Object>) value);
    }

    @Override
    int port() {
        return port.join();
    }

    @Override
    int adminPort() {
        return adminPort.join();
    }

    @Override
    void queueDepthSet(String cluster, int depth) {
        String label = siteOf(cluster) + "/" + cluster;
        await(
                "grid_cluster_queue_depth{cluster=\"" + label + "\"} = " + depth,
                () -> gauge("grid_cluster_queue_depth", label) == depth);
    }

    private String siteOf(String cluster) {
        return grid.stream()
                .filter(s -> s.clusters().stream().anyMatch(c -> c.name().equals(cluster)))
                .map(Scenario.Site::name)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no cluster " + cluster + " in the grid"));
    }

    @Override
    void advance(Duration by) {
        throw new UnsupportedOperationException("the jar runs on the real clock");
    }

    @Override
    void reload(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        startEngines(grid);
        double before = counter("applied");
        replaceConfig(grid, gateway, plugins);
        await("grid_config_reloads_total{result=\"applied\"} to grow", () -> counter("applied") > before);
        this.grid = grid;
        awaitMeasured();
    }

    @Override
    void refusedReload(
            List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins, String refused) {
        startEngines(grid);
        // the refusal's text, from the same loader the jar runs
        Path offered =
                write("refused", text(grid, pick(gateway, scenario.gateway()), pick(plugins, scenario.plugins())));
        assertThatThrownBy(() -> ConfigLoader.load(offered))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(refused);
        double before = counter("refused");
        replaceConfig(grid, gateway, plugins);
        await("grid_config_reloads_total{result=\"refused\"} to grow", () -> counter("refused") > before);
        await("the jar to log the refusal (" + refused + ")", () -> output().contains(refused));
    }

    private static Map<String, Object> pick(Map<String, Object> given, Map<String, Object> otherwise) {
        return given.isEmpty() ? otherwise : given;
    }

    private void replaceConfig(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        String text = text(grid, pick(gateway, scenario.gateway()), pick(plugins, scenario.plugins()));
        try {
            Path next = dir().resolve("gateway.yaml.next");
            Files.writeString(next, text);
            Files.move(next, configFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitMeasured() {
        for (Scenario.Site site : grid) {
            for (Scenario.Cluster cluster : site.clusters()) {
                String label = site.name() + "/" + cluster.name();
                await(label + " measured", () -> !Double.isNaN(gauge("grid_cluster_queue_depth", label)));
            }
        }
    }

    private double counter(String result) {
        return ScenarioRunner.sum(
                metrics(),
                new Expectation.MetricDelta(
                        "grid_config_reloads_total", Map.of("result", result), null, null, null, null, null));
    }

    /** The gauge's value for {@code cluster}, NaN when absent or unmeasured. */
    private double gauge(String name, String cluster) {
        String prefix = name + "{";
        for (String line : metrics().split("\n")) {
            if (line.startsWith(prefix) && line.contains("cluster=\"" + cluster + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }

    private String metrics() {
        return GatewayHarness.send(
                        client,
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort() + "/metrics"))
                                .timeout(Duration.ofSeconds(5))
                                .build())
                .body();
    }

    /** Polls {@code condition} until it holds, failing after {@link #DEADLINE}. */
    private void await(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the jar exited (" + process.exitValue() + ") while awaiting " + what
                        + "; its output:\n" + output());
            }
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("no " + what + " within " + DEADLINE + "; the jar's output:\n" + output());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static void stop(Process process, Thread reader) {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            if (reader != null) {
                reader.join(Duration.ofSeconds(5));
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        try {
            stop(process, reader);
        } finally {
            closeEngines();
        }
    }
}
