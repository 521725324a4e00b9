package grid.gateway.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Test fixture: the gateway's {@link Main} in a child JVM (this test's JDK and class path) whose open-file limit is
 * {@code openFiles} ({@code ulimit -n}, soft and hard, so the JVM cannot raise it), serving a config file. Its ports
 * come from the two lines it prints; everything it writes (stdout and stderr, the log) is kept for assertions.
 * {@link #close()} ends it.
 */
final class ChildGateway implements AutoCloseable {
    private static final Duration START_DEADLINE = Duration.ofSeconds(60);
    private static final Pattern PORT = Pattern.compile("grid-gateway (listening|admin) port=(\\d+)");

    private final Process process;
    private final List<String> output = new ArrayList<>();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final CompletableFuture<Integer> adminPort = new CompletableFuture<>();

    ChildGateway(Path config, int openFiles) {
        this(config, openFiles, true);
    }

    /**
     * A config for a child: both listeners on loopback and free ports, {@code serverExtra} (indented lines) added to
     * the {@code server} block, no access log, one cluster nobody serves (port 9), scraped once a minute.
     */
    static String config(String serverExtra) {
        return """
                server:
                  port: 0
                  admin_port: 0
                  host: 127.0.0.1
                  admin_host: 127.0.0.1
                %s
                gateway:
                  site: east
                  access_log: "off"
                sites:
                  - name: east
                    clusters:
                      - name: east-a
                        url: http://127.0.0.1:9
                        metrics_url: http://127.0.0.1:9/metrics
                        models: [demo-model]
                plugins:
                  grid_site_route:
                    load: {poll_interval_ms: 60000, window_secs: 60}
                """.formatted(serverExtra);
    }

    /**
     * A child whose stderr is read with its stdout when {@code readStderr}; otherwise its stderr is a pipe nobody
     * reads, which fills (64 KiB on Linux) and then holds every write to it, as a stalled log shipper does.
     */
    ChildGateway(Path config, int openFiles, boolean readStderr) {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String command =
                "ulimit -n " + openFiles + " && exec \"$0\" -cp \"$1\" " + Main.class.getName() + " --config \"$2\"";
        try {
            process = new ProcessBuilder(
                            "bash", "-c", command, java, System.getProperty("java.class.path"), config.toString())
                    .redirectErrorStream(readStderr)
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread.ofPlatform().daemon().name("child-gateway-" + process.pid()).start(this::read);
        try {
            port.get(START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            adminPort.get(START_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            close();
            throw new IllegalStateException("the child gateway printed no ports; its output:\n" + output());
        }
    }

    private void read() {
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                Matcher m = PORT.matcher(line);
                if (m.matches()) {
                    (m.group(1).equals("listening") ? port : adminPort).complete(Integer.parseInt(m.group(2)));
                }
                synchronized (output) {
                    output.add(line);
                }
            }
        } catch (IOException ended) {
            // The process is gone.
        } finally {
            IllegalStateException gone = new IllegalStateException("the child gateway ended");
            port.completeExceptionally(gone);
            adminPort.completeExceptionally(gone);
        }
    }

    int port() {
        return port.join();
    }

    int adminPort() {
        return adminPort.join();
    }

    /** Everything the child wrote so far, one line each. */
    String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /** Whether the child wrote a line containing {@code text}. */
    boolean wrote(String text) {
        synchronized (output) {
            return output.stream().anyMatch(line -> line.contains(text));
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
