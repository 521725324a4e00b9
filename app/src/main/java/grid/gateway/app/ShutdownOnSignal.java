package grid.gateway.app;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The SIGTERM hook, registered before the gateway starts so that no signal finds the gateway serving without it: a
 * signal that arrives while the gateway starts waits for the start (at most {@code startWait}), then stops the gateway
 * it gave as any later signal does (its shutdown delay and drain); a start that failed stops nothing.
 *
 * <p>Thread-safe: {@link #started} and {@link #notStarted} are called by the starting thread, {@link #run} by the
 * JVM's shutdown thread.
 */
final class ShutdownOnSignal implements Runnable {
    private static final System.Logger LOG = System.getLogger("grid.gateway.app");
    /** How long a signal waits for a start in progress before the process ends without stopping it. */
    static final Duration START_WAIT = Duration.ofSeconds(30);

    private final CompletableFuture<Optional<GatewayServer>> start = new CompletableFuture<>();
    private final Consumer<GatewayServer> stop;
    private final Duration startWait;

    /** A hook that runs {@code stop} on the gateway once it has started. */
    ShutdownOnSignal(Consumer<GatewayServer> stop, Duration startWait) {
        this.stop = requireNonNull(stop, "stop");
        this.startWait = requireNonNull(startWait, "startWait");
    }

    /** The gateway serves: a signal, before or after this, stops it. */
    void started(GatewayServer server) {
        start.complete(Optional.of(server));
    }

    /** The start failed: a signal stops nothing. Call it before {@code System.exit}, which waits for the hook. */
    void notStarted() {
        start.complete(Optional.empty());
    }

    @Override
    public void run() {
        Optional<GatewayServer> server;
        try {
            server = start.get(startWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "stop signal: the start did not end within " + startWait + "; the process ends without draining");
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException e) {
            return; // never completed exceptionally
        }
        server.ifPresent(stop);
    }
}
