package grid.gateway.conformance.soak;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Java process the soak started (an engine simulator or the gateway): its output is kept (last 3,000 lines) and
 * searched for the port lines it prints. {@link #close()} stops it: SIGTERM, then SIGKILL after 15 s.
 *
 * <p>Thread-safe.
 */
final class ChildProcess implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Deque<String> output = new ArrayDeque<>();
    private final List<PortLine> waiting;
    private final Thread reader;

    /** A line that announces a port, and the future that gets it. */
    record PortLine(Pattern pattern, CompletableFuture<Integer> port) {
        static PortLine of(String regex) {
            return new PortLine(Pattern.compile(regex), new CompletableFuture<>());
        }
    }

    ChildProcess(String name, List<String> command, List<PortLine> ports) {
        this.name = name;
        this.waiting = List.copyOf(ports);
        try {
            this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
        this.reader = Thread.ofPlatform().daemon().name("soak-output-" + name).start(this::read);
    }

    private void read() {
        try (BufferedReader lines =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                for (PortLine port : waiting) {
                    Matcher m = port.pattern().matcher(line);
                    if (m.find()) {
                        port.port().complete(Integer.parseInt(m.group(1)));
                    }
                }
                synchronized (output) {
                    output.addLast(line);
                    if (output.size() > 3000) {
                        output.removeFirst();
                    }
                }
            }
        } catch (IOException ended) {
            // the process is gone
        } finally {
            waiting.forEach(p -> p.port().completeExceptionally(new IllegalStateException(name + " ended")));
        }
    }

    /** The port announced by {@code line}, waiting up to {@code timeout}. */
    int port(PortLine line, Duration timeout) {
        try {
            return line.port().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(name + " printed no port within " + timeout + "; output:\n" + output());
        }
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    String output() {
        synchronized (output) {
            return String.join("\n", output);
        }
    }

    /** Sends SIGTERM; returns the exit code, or empty (after a SIGKILL) when it did not end within {@code wait}. */
    java.util.OptionalInt terminate(Duration wait) {
        process.destroy();
        try {
            if (process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                reader.join(Duration.ofSeconds(30)); // its last lines
                return java.util.OptionalInt.of(process.exitValue());
            }
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        return java.util.OptionalInt.empty();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            terminate(Duration.ofSeconds(15));
        }
    }
}
