package grid.gateway.conformance.outside;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged {@code app/target/grid-gateway.jar} as an outside test sees it: a separate process started as an
 * operator starts it ({@code java -jar grid-gateway.jar ARGS}, with the JDK running the tests and an environment of
 * the test's choosing), its stdout and stderr kept apart, line by line. Nothing of the gateway's classes is used to
 * judge it: what it printed, its exit code and its sockets are all a test reads.
 */
final class OutsideJar implements AutoCloseable {
    /** The packaged gateway, relative to the conformance module (Maven runs tests there). */
    static final Path JAR = Path.of("../app/target/grid-gateway.jar");

    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final Pattern PORT = Pattern.compile("grid-gateway (listening|admin) port=(\\d+)");

    private final Process process;
    private final List<String> stdout = new ArrayList<>();
    private final List<String> stderr = new ArrayList<>();
    private final Thread outReader;
    private final Thread errReader;
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final CompletableFuture<Integer> adminPort = new CompletableFuture<>();

    /** What a command that ends printed, and its exit code. */
    record Finished(int exitCode, List<String> stdout, List<String> stderr) {
        String out() {
            return String.join("\n", stdout);
        }

        String err() {
            return String.join("\n", stderr);
        }
    }

    private OutsideJar(Map<String, String> env, String... args) {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> command =
                new ArrayList<>(List.of(java, "-jar", JAR.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        // the operator's environment, without whatever the test JVM's environment would lend the gateway
        builder.environment().remove("GRID_GATEWAY_CONFIG");
        builder.environment().remove("GRID_GATEWAY_LOG_FORMAT");
        builder.environment().remove("GRID_GATEWAY_ADMIN_HOST");
        builder.environment().putAll(env);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        outReader = read(process.getInputStream(), stdout, true);
        errReader = read(process.getErrorStream(), stderr, false);
    }

    /** Why the jar cannot run here, or null when it can. */
    static String unavailable() {
        if (!Files.isRegularFile(JAR)) {
            return "no " + JAR.toAbsolutePath().normalize() + " (package the app module first, e.g. mvn verify)";
        }
        return null;
    }

    /** Runs a command that is expected to end by itself within the deadline. */
    static Finished run(Map<String, String> env, String... args) {
        try (OutsideJar jar = new OutsideJar(env, args)) {
            if (!jar.process.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the jar did not end within " + DEADLINE + "; stdout:\n"
                        + jar.lines(jar.stdout) + "\nstderr:\n" + jar.lines(jar.stderr));
            }
            jar.outReader.join(DEADLINE);
            jar.errReader.join(DEADLINE);
            return new Finished(jar.process.exitValue(), jar.snapshot(jar.stdout), jar.snapshot(jar.stderr));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts the gateway to serve; returns once it printed both of its port lines. */
    static OutsideJar serve(Map<String, String> env, String... args) {
        OutsideJar jar = new OutsideJar(env, args);
        try {
            jar.port.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            jar.adminPort.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            return jar;
        } catch (InterruptedException e) {
            jar.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            jar.close();
            throw new AssertionError("the jar printed no ports within " + DEADLINE + "; stdout:\n"
                    + jar.lines(jar.stdout) + "\nstderr:\n" + jar.lines(jar.stderr));
        }
    }

    private Thread read(InputStream in, List<String> into, boolean ports) {
        return Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    Matcher m = PORT.matcher(line);
                    if (ports && m.matches()) {
                        (m.group(1).equals("listening") ? port : adminPort).complete(Integer.parseInt(m.group(2)));
                    }
                    synchronized (into) {
                        into.add(line);
                    }
                }
            } catch (IOException ended) {
                // the process is gone
            } finally {
                IllegalStateException gone = new IllegalStateException("the jar ended before printing its ports");
                port.completeExceptionally(gone);
                adminPort.completeExceptionally(gone);
            }
        });
    }

    int port() {
        return port.join();
    }

    int adminPort() {
        return adminPort.join();
    }

    List<String> stdout() {
        return snapshot(stdout);
    }

    List<String> stderr() {
        return snapshot(stderr);
    }

    private List<String> snapshot(List<String> lines) {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    private String lines(List<String> lines) {
        return String.join("\n", snapshot(lines));
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
