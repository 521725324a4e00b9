package grid.gateway.conformance.soak;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The soak (reliability J.101, bounded): the packaged gateway in front of three engine simulators at two sites, mixed
 * traffic with injected faults from {@link Traffic} clients, then the checks:
 *
 * <pre>
 *   every request ended exactly once, as its kind expects; none hung (30 s deadline each)
 *   grid_requests_in_flight back to 0
 *   heap after GC   ≤ baseline × 1.25 + 8 MiB        live OS threads ≤ baseline + 4
 *   open fds        ≤ baseline + 8                    ESTABLISHED connections to the engines ≤ baseline + clients
 *   SIGTERM with streams in flight: each stream completes, the gateway exits within its grace
 * </pre>
 *
 * The baseline is read after a warm-up (a tenth of the run, at most 30 s), with no request in flight; the end reading
 * likewise after the traffic stops. Loopback only; every process it starts is stopped before it returns.
 *
 * <pre>
 * java -cp conformance/target/engine-simulator.jar:conformance/target/libs/* grid.gateway.conformance.soak.SoakRun \
 *     [--seconds N] [--clients N] [--jar app/target/grid-gateway.jar] [--seed N]      (bench/soak.sh wraps it)
 * </pre>
 */
public final class SoakRun {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final SoakSettings settings;
    private final PrintStream out;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    SoakRun(SoakSettings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /** Runs a soak from the command line; exits 0 when every check passed, 1 otherwise, 2 on a usage error. */
    public static void main(String[] args) throws Exception {
        SoakSettings settings;
        try {
            settings = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("soak: " + e.getMessage());
            System.err.println("usage: SoakRun [--seconds N] [--clients N] [--jar PATH] [--seed N]");
            System.exit(2);
            return;
        }
        // A soak stopped by a signal runs no finally block: stop what it started (its own child processes) here.
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroy)));
        boolean passed = new SoakRun(settings, System.out).run();
        System.exit(passed ? 0 : 1);
    }

    static SoakSettings parse(String[] args) throws IOException {
        long seconds = 600;
        int clients = 8;
        long seed = 1;
        Path jar = Path.of("app/target/grid-gateway.jar");
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--seconds" -> seconds = Long.parseLong(args[i + 1]);
                case "--clients" -> clients = Integer.parseInt(args[i + 1]);
                case "--seed" -> seed = Long.parseLong(args[i + 1]);
                case "--jar" -> jar = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (args.length % 2 != 0) {
            throw new IllegalArgumentException(args[args.length - 1] + " needs a value");
        }
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no gateway jar at " + jar + " (mvn package)");
        }
        return new SoakSettings(
                Duration.ofSeconds(seconds), clients, jar, Files.createTempDirectory("grid-soak"), seed);
    }

    /** Runs the soak, prints its figures; true when every check passed. */
    public boolean run() throws Exception {
        out.println(
                "soak: " + settings.duration().toSeconds() + " s of traffic, " + settings.clients() + " clients, seed "
                        + settings.seed() + ", warm-up " + settings.warmUp().toSeconds() + " s");
        try (SoakGrid grid = new SoakGrid(settings.workDir(), settings.gatewayJar());
                ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor()) {
            awaitReady(grid);
            Exchange exchange = new Exchange(client, watchdog, DEADLINE);
            traffic(grid, exchange, new Tally(), settings.warmUp(), settings.seed() * 1000);
            awaitIdle(grid);
            ProcessProbe.Reading baseline = ProcessProbe.read(grid.gatewayPid(), grid.enginePorts());
            out.println("baseline:  " + baseline);
            Tally tally = new Tally();
            traffic(grid, exchange, tally, settings.duration(), settings.seed());
            boolean idle = awaitIdle(grid);
            ProcessProbe.Reading end = ProcessProbe.read(grid.gatewayPid(), grid.enginePorts());
            out.println("end:       " + end);
            SoakVerdict verdict = new SoakVerdict(settings.clients());
            verdict.traffic(tally, idle);
            verdict.resources(baseline, end);
            report(tally, grid);
            verdict.shutdown(new ShutdownCheck(client, grid).run());
            return verdict.print(out);
        }
    }

    /** Runs the clients for {@code length}, then waits for each to finish its last request. */
    private void traffic(SoakGrid grid, Exchange exchange, Tally tally, Duration length, long seed) throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        String base = "http://127.0.0.1:" + grid.port();
        List<Future<?>> clients = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < settings.clients(); i++) {
                Traffic traffic = new Traffic(base, exchange, tally, seed * 7919 + i);
                clients.add(threads.submit(() -> traffic.run(running::get)));
            }
            Thread.sleep(length);
            running.set(false);
            for (Future<?> c : clients) {
                c.get();
            }
        }
    }

    private void report(Tally tally, SoakGrid grid) {
        out.println("requests sent " + tally.sentCount() + ", ended " + tally.endedCount());
        out.println("ends:      " + tally.byEnd());
        out.println("statuses:  " + tally.byStatus());
        out.println("kinds:     " + tally.byKind());
        out.println("unexpected " + tally.unexpected());
        tally.problems().forEach(p -> out.println("  problem: " + p));
        out.println("gateway upstream errors by kind: "
                + Metrics.sumBy(metrics(grid), "grid_upstream_errors_total", "kind"));
    }

    private void awaitReady(SoakGrid grid) throws InterruptedException {
        for (int i = 0; i < 600; i++) {
            if (get("http://127.0.0.1:" + grid.adminPort() + "/health/ready").startsWith("200")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the gateway did not turn ready; its output:\n" + grid.gatewayOutput());
    }

    /** Waits (up to 30 s) until the gateway has no request in flight; false if it never got there. */
    private boolean awaitIdle(SoakGrid grid) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (Metrics.value(metrics(grid), "grid_requests_in_flight") == 0) {
                Thread.sleep(1000); // let closed connections settle before anything is counted
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    private String metrics(SoakGrid grid) {
        return get("http://127.0.0.1:" + grid.adminPort() + "/metrics").substring(4);
    }

    private String get(String url) {
        try {
            HttpResponse<String> answer = client.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return answer.statusCode() + " " + answer.body();
        } catch (IOException e) {
            return "000 " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** For {@link ShutdownCheck}: the exit code type. */
    static String exit(OptionalInt code) {
        return code.isPresent() ? Integer.toString(code.getAsInt()) : "killed";
    }
}
