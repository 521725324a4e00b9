package grid.gateway.app.http;

import io.helidon.common.socket.HelidonSocket;
import io.helidon.common.socket.NioSocket;
import io.helidon.webserver.ConnectionContext;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Lets the handler's own thread read a request body that has not fully arrived and still answer 408 at
 * {@code body_timeout_ms}: an alarm on the shared scheduler shuts the input side of the connection's socket at the
 * deadline, which ends the blocked read (it returns end of stream) while the output side stays open for the 408.
 *
 * <pre>
 *   handler thread:    arm(deadline) ─ read the body (blocks between arrivals) ─ finish(): won → cancel, the body
 *                                                                                         lost → 408
 *   scheduler thread:  at the deadline: expire(): won → shutdownInput (the blocked read returns end of stream)
 * </pre>
 *
 * <p>Whichever of {@link Expiry#finish()} and the alarm comes first decides, once: a body read to its end just as the
 * deadline passes is a 408 only if the alarm won, and then its input was shut, so nothing more is read from that
 * connection (the 408 closes it anyway). Interrupting the thread instead would close the whole channel (an NIO
 * channel closes on interrupt), and the 408 could not be sent.
 *
 * <p>Helidon 4.5 gives the connection's socket to receive listeners ({@link ConnectionContext#serverSocket()}) but
 * not its channel, so the channel is read once from Helidon's {@code NioSocket} by a private-field handle. This works
 * only for a plain (not TLS) socket of an NIO listener (Helidon's default) on the class path; anywhere else, or if
 * Helidon's field is gone, {@link #endRead} is {@code null} and {@link BoundedBody} reads the body on a helper
 * thread instead. {@code BodyDeadlineIntegrationTest} fails if the handle stops working against the Helidon in use.
 */
final class BodyDeadline {
    private static final System.Logger LOG = System.getLogger(BodyDeadline.class.getName());
    private static final @Nullable VarHandle CHANNEL = channelHandle();

    private BodyDeadline() {}

    /** Runs an action after a delay, and cancels it; a seam for tests. */
    interface Alarm {
        /** Runs {@code action} after {@code delay}; the returned action cancels it. */
        Runnable arm(Duration delay, Runnable action);
    }

    /** An alarm on {@code scheduler}. */
    static Alarm on(ScheduledExecutorService scheduler) {
        return (delay, action) -> {
            ScheduledFuture<?> pending = scheduler.schedule(action, delay.toNanos(), TimeUnit.NANOSECONDS);
            return () -> pending.cancel(false);
        };
    }

    /**
     * What ends a blocked read of {@code ctx}'s request body without closing its output: shutting the input side of
     * its channel; {@code null} when the channel cannot be reached (TLS, a plain-socket listener, no handle).
     */
    static @Nullable Runnable endRead(ConnectionContext ctx) {
        VarHandle handle = CHANNEL;
        HelidonSocket socket = ctx.serverSocket();
        if (handle == null || socket.getClass() != NioSocket.class) {
            return null;
        }
        SocketChannel channel = (SocketChannel) handle.get((NioSocket) socket);
        return () -> {
            try {
                channel.shutdownInput();
            } catch (IOException | RuntimeException e) {
                // Already closed or shut: no read of it can block any more.
            }
        };
    }

    private static @Nullable VarHandle channelHandle() {
        try {
            return MethodHandles.privateLookupIn(NioSocket.class, MethodHandles.lookup())
                    .findVarHandle(NioSocket.class, "delegate", SocketChannel.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.log(
                    System.Logger.Level.INFO,
                    "request bodies that arrive over several reads are read on a helper thread: " + e);
            return null;
        }
    }

    /** One read's deadline: the first of {@link #finish()} and {@link #run()} (the alarm) wins. */
    static final class Expiry extends AtomicBoolean implements Runnable {
        private static final long serialVersionUID = 1L;
        private final transient Runnable endRead;

        Expiry(Runnable endRead) {
            this.endRead = endRead;
        }

        /** The alarm: if the read has not finished, ends it. */
        @Override
        public void run() {
            if (compareAndSet(false, true)) {
                endRead.run();
            }
        }

        /** The read finished (or failed); whether that came before the deadline. */
        boolean finish() {
            return compareAndSet(false, true);
        }
    }
}
