package grid.gateway.app.listen;

import static java.util.Objects.requireNonNull;

import io.helidon.webserver.WebServer;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * Keeps one started Helidon listener accepting through file-descriptor exhaustion, and tells whether it still
 * listens.
 *
 * <p>Helidon 4.5 has no setting or extension point for its accept loop, whose first failed {@code accept} ends the
 * listener for good (the port then refuses every connection while the process, and its health endpoints, carry on).
 * So the guard puts a {@link PausingServerChannel} around the listener's bound channel: it replaces the channel in
 * the listener's private {@code serverSocket} field (read by a private-field handle, as {@code BodyDeadline} reads
 * Helidon's socket), then opens and closes one connection to the port, so that an accept already blocked on the
 * bare channel returns and the loop's next accept is the guarded one. Nothing else changes: the same socket is
 * bound, Helidon closes it at stop through the wrapper.
 *
 * <pre>
 *   start()  ──> bound channel ──guard()──> serverSocket = PausingServerChannel(bound channel)
 *                                     └──> one connection to the port: the loop's next accept is guarded
 *   EMFILE   ──> the accept pauses (AcceptPauses told), retries, resumes
 *   a stop, or anything that closed the channel ──> listening() false
 * </pre>
 *
 * <p>If Helidon's fields are gone (another Helidon version) the guard logs it once and does nothing:
 * {@link #listening()} is then always true. {@code ListenerExhaustionTest} fails if the guard stops working against
 * the Helidon in use.
 *
 * <p>Thread-safe: the channel is set once in {@link #guard}, the pause flag is volatile.
 */
public final class ListenerGuard {
    private static final System.Logger LOG = System.getLogger(ListenerGuard.class.getName());
    /** How long the guard waits for the accept loop to reach the guarded channel after its connection. */
    private static final Duration REACH_LOOP = Duration.ofSeconds(5);

    private static final @Nullable Handles HANDLES = Handles.find();

    private final String name;
    private final ListenerEvents events;
    private volatile @Nullable PausingServerChannel channel;
    private volatile boolean paused;

    private ListenerGuard(String name, ListenerEvents events) {
        this.name = name;
        this.events = events;
    }

    /**
     * Guards the default listener of {@code server} (started, bound to {@code host}), named {@code name} in logs and
     * metrics, telling {@code events} of each pause; each connection it accepts is passed through {@code accepted}
     * before Helidon serves it (the send timeout's watch of every write).
     */
    public static ListenerGuard guard(
            WebServer server, String host, String name, ListenerEvents events, UnaryOperator<SocketChannel> accepted) {
        requireNonNull(server, "server");
        requireNonNull(host, "host");
        ListenerGuard guard = new ListenerGuard(requireNonNull(name, "name"), requireNonNull(events, "events"));
        Handles handles = HANDLES;
        Optional<Object> listener = handles == null ? Optional.empty() : handles.listener(server);
        if (handles == null || listener.isEmpty()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    name + " listener: accepts are not guarded (Helidon's listener is not"
                            + " reachable); running out of file descriptors ends it");
            return guard;
        }
        ServerSocketChannel bound = (ServerSocketChannel) handles.serverSocket.getVolatile(listener.get());
        PausingServerChannel guarded = new PausingServerChannel(bound, guard.new Pauses(), accepted);
        handles.serverSocket.setVolatile(listener.get(), guarded);
        guard.channel = guarded;
        reachLoop(guarded, new InetSocketAddress(connectable(host), server.port()), name);
        return guard;
    }

    /** Logs a pause once, with the open files, and its end. */
    private final class Pauses implements PausingServerChannel.AcceptPauses {
        @Override
        public void paused(IOException cause) {
            paused = true;
            events.acceptPaused(name);
            LOG.log(
                    System.Logger.Level.WARNING,
                    name + " listener: accept failed (" + cause.getMessage() + "; open"
                            + " files " + describe(OpenFiles.open()) + " of " + describe(OpenFiles.limit())
                            + "); accepting"
                            + " pauses and is retried every " + PausingServerChannel.LONGEST_WAIT.toMillis()
                            + " ms at most,"
                            + " new connections wait in the listen backlog");
        }

        @Override
        public void resumed(long failures) {
            paused = false;
            events.acceptResumed(name);
            LOG.log(
                    System.Logger.Level.INFO,
                    name + " listener: accepting again after " + failures + " failed accepts");
        }

        private static String describe(OptionalLong count) {
            return count.isPresent() ? Long.toString(count.getAsLong()) : "unknown";
        }
    }

    /** Whether the listener accepts connections now: it listens and is not paused. */
    public boolean accepting() {
        return listening() && !paused;
    }

    /** The name in logs and metrics ({@code client}, {@code admin}). */
    public String name() {
        return name;
    }

    /**
     * Whether the listener's socket is still open: false once a stop, or Helidon's accept loop giving up, closed it
     * (always true when the guard could not be put in place).
     */
    public boolean listening() {
        PausingServerChannel guarded = channel;
        return guarded == null || guarded.listening();
    }

    /** Whether the guard is in place. */
    public boolean guarded() {
        return channel != null;
    }

    /**
     * Makes an accept already blocked on the bare channel return, with one connection (Helidon reads it, finds it
     * closed and drops it), and waits until the loop calls the guarded channel.
     */
    private static void reachLoop(PausingServerChannel guarded, InetSocketAddress port, String name) {
        try (SocketChannel nudge = SocketChannel.open(port)) {
            nudge.shutdownOutput();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, () -> name + " listener: connection to itself failed: " + e);
        }
        try {
            if (!guarded.entered().await(REACH_LOOP.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.log(
                        System.Logger.Level.WARNING,
                        name + " listener: its accept loop did not reach the guard within " + REACH_LOOP.toSeconds()
                                + " s; it will at its next connection");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** An address a connection to a listener bound to {@code host} reaches: loopback for a wildcard. */
    private static InetAddress connectable(String host) {
        try {
            InetAddress address = InetAddress.getByName(host);
            return address.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : address;
        } catch (IOException e) {
            return InetAddress.getLoopbackAddress();
        }
    }

    @Override
    public String toString() {
        return "ListenerGuard[" + name + (channel == null ? ", unguarded" : listening() ? ", listening" : ", closed")
                + "]";
    }

    /** Handles on Helidon 4.5's private fields: the server's listeners by socket name, a listener's channel. */
    private record Handles(Class<?> server, VarHandle listeners, VarHandle serverSocket) {
        static @Nullable Handles find() {
            try {
                Class<?> server = Class.forName("io.helidon.webserver.LoomServer");
                Class<?> listener = Class.forName("io.helidon.webserver.ServerListener");
                return new Handles(
                        server,
                        MethodHandles.privateLookupIn(server, MethodHandles.lookup())
                                .findVarHandle(server, "listeners", Map.class),
                        MethodHandles.privateLookupIn(listener, MethodHandles.lookup())
                                .findVarHandle(listener, "serverSocket", ServerSocketChannel.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.log(System.Logger.Level.INFO, "listener accepts cannot be guarded: " + e);
                return null;
            }
        }

        /** The default socket's listener of {@code server}, if it is a server these handles fit. */
        Optional<Object> listener(WebServer webServer) {
            if (!server().isInstance(webServer)) {
                return Optional.empty();
            }
            Map<?, ?> byName = (Map<?, ?>) listeners.get(webServer);
            return Optional.ofNullable(byName.get(WebServer.DEFAULT_SOCKET_NAME));
        }
    }
}
