package grid.gateway.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * A real {@code redis-server} (Debian's package) on 127.0.0.1 and a free port, with nothing persisted, so that a
 * restart starts empty (a Redis restarted or flushed). For prefix-sharing tests and {@code bin/demo --replicas}.
 *
 * <p>The port stays this one's from start to close, while the server runs and while it is killed: a socket of this
 * JVM stays bound to it, never listening, with {@code SO_REUSEADDR} as {@code redis-server}'s own listener has, so the
 * server can listen there while the kernel gives the port to no other socket (not a listener on port 0, in this JVM
 * or another process, and not the own end of a connection, such as a client's reconnecting while the server is away).
 * A port learnt by binding and closing a socket, kept by nothing, could be taken before the server binds it or
 * between a kill and a restart.
 *
 * <p>Tests never mock Redis: when no {@code redis-server} can be found this refuses to start with a message saying
 * how to install it, rather than letting a test skip.
 *
 * <p>Not thread-safe: one owner starts and stops it.
 */
public final class RedisProcess implements AutoCloseable {
    private static final Duration READY = Duration.ofSeconds(20);
    private static final List<Path> CANDIDATES =
            List.of(Path.of("/usr/bin/redis-server"), Path.of("/usr/local/bin/redis-server"));

    private final Path binary;
    private final Socket portKept;
    private final int port;
    private @Nullable Process process;

    private RedisProcess(Path binary, Socket portKept) {
        this.binary = binary;
        this.portKept = portKept;
        this.port = portKept.getLocalPort();
    }

    /** Starts a Redis on a free loopback port. */
    public static RedisProcess start() {
        Path binary = binary().orElseThrow(() -> new IllegalStateException(
                "redis-server not found (looked at $GRID_REDIS_SERVER, " + CANDIDATES + " and PATH): install Debian's"
                        + " redis-server package (apt-get install -y redis-server); .ci/run installs it in CI"));
        RedisProcess redis = new RedisProcess(binary, keptPort());
        try {
            redis.launch();
            return redis;
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
    }

    /** The {@code redis-server} to run: {@code $GRID_REDIS_SERVER}, a usual place, or one on the PATH. */
    public static Optional<Path> binary() {
        String configured = System.getenv("GRID_REDIS_SERVER");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured));
        }
        for (Path candidate : CANDIDATES) {
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "redis-server"))) {
                return Optional.of(Path.of(dir, "redis-server"));
            }
        }
        return Optional.empty();
    }

    /** {@code redis://127.0.0.1:<port>/0}. */
    public String url() {
        return "redis://127.0.0.1:" + port + "/0";
    }

    /** The port it listens on (the same after a restart). */
    public int port() {
        return port;
    }

    /** Kills the server at once (SIGKILL): connections break, nothing is saved. */
    public void kill() {
        Process running = process;
        if (running != null) {
            running.destroyForcibly();
            try {
                running.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }

    /** Starts it again on the same port, empty. */
    public void restart() {
        kill();
        launch();
    }

    @Override
    public void close() {
        kill();
        try {
            portKept.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void launch() {
        ProcessBuilder builder = new ProcessBuilder(
                        binary.toString(),
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--daemonize",
                        "no")
                .redirectErrorStream(true);
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + binary, e);
        }
        CompletableFuture<Boolean> ready = new CompletableFuture<>();
        Process started = process;
        Thread.ofPlatform().daemon().name("redis-" + port + "-output").start(() -> watch(started, ready));
        try {
            if (!ready.get(READY.toSeconds(), TimeUnit.SECONDS)) {
                kill();
                throw new IllegalStateException("redis-server on port " + port + " exited before it was ready");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
            throw new IllegalStateException("interrupted while redis-server started", e);
        } catch (ExecutionException | TimeoutException e) {
            kill();
            throw new IllegalStateException("redis-server on port " + port + " not ready within " + READY, e);
        }
    }

    /** Completes {@code ready} when the server says it accepts connections (false if its output ends first). */
    private static void watch(Process process, CompletableFuture<Boolean> ready) {
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.contains("Ready to accept connections")) {
                    ready.complete(true);
                }
            }
        } catch (IOException e) {
            // The process went away; its output ends here.
        }
        ready.complete(false);
    }

    /** A socket bound to a port of the kernel's choice on 127.0.0.1, never listening, that the server may share. */
    private static Socket keptPort() {
        Socket socket = new Socket();
        try {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            return socket;
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new UncheckedIOException(e);
        }
    }
}
