package grid.gateway.app.listen;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * A listening channel whose {@link #accept()} survives a failed accept: the accept loop of Helidon 4.5's
 * {@code ServerListener} treats any exception from {@code accept} as the end of the listener (it closes the port and
 * stops), and {@code accept(2)} fails with {@code EMFILE} or {@code ENFILE} whenever the process or the system is out
 * of file descriptors, which any burst of connections can cause. Here such a failure pauses accepting instead:
 *
 * <pre>
 *   accept() ── ok ──────────────────────────────> the connection (a pause, if one ran, ends: told once)
 *            └─ IOException, channel still open ─> told once a pause, wait (10 ms doubling to 500 ms), accept again
 *            └─ channel closed (a stop) ─────────> the exception, passed on: the listener ends
 * </pre>
 *
 * <p>While paused, the kernel keeps completing handshakes into the listen backlog; they are accepted once descriptors
 * are free again (nginx does the same: it disables accept events for a moment on {@code EMFILE}). Linux also reports
 * a pending connection's network error from {@code accept} (accept(2), "Error handling"), which is retried the same
 * way. An interrupt ends a wait the way it ends a blocked accept: the channel is closed.
 *
 * <p>Every other operation is the delegate's. Thread-safe as the delegate is; Helidon calls {@link #accept()} from its
 * one listener thread.
 */
final class PausingServerChannel extends ServerSocketChannel {
    /** The first wait after a failed accept. */
    static final Duration FIRST_WAIT = Duration.ofMillis(10);
    /** The longest wait between two accepts while paused: about how long a freed descriptor stays unused. */
    static final Duration LONGEST_WAIT = Duration.ofMillis(500);

    private final ServerSocketChannel delegate;
    private final AcceptPauses pauses;
    private final UnaryOperator<SocketChannel> accepted;
    private final CountDownLatch entered = new CountDownLatch(1);

    /** What a pause tells: a listener's accepts failed and are retried, and when they succeed again. */
    interface AcceptPauses {
        /** An accept failed with {@code cause} while the channel is open; accepting pauses (told once a pause). */
        void paused(IOException cause);

        /** Accepting works again after {@code failures} failed accepts. */
        void resumed(long failures);
    }

    /** Guards {@code delegate}'s accepts, telling {@code pauses}; each connection accepted is passed through {@code accepted}. */
    PausingServerChannel(ServerSocketChannel delegate, AcceptPauses pauses, UnaryOperator<SocketChannel> accepted) {
        super(delegate.provider());
        this.delegate = requireNonNull(delegate, "delegate");
        this.pauses = requireNonNull(pauses, "pauses");
        this.accepted = requireNonNull(accepted, "accepted");
    }

    /** Whether the real listening socket is open: false once a stop, or anything else, closed it. */
    boolean listening() {
        return delegate.isOpen();
    }

    /** Counted down when an accept loop first calls {@link #accept()} on this channel. */
    CountDownLatch entered() {
        return entered;
    }

    @Override
    public @Nullable SocketChannel accept() throws IOException {
        entered.countDown();
        long failures = 0;
        long waitNanos = FIRST_WAIT.toNanos();
        while (true) {
            try {
                SocketChannel connection = delegate.accept();
                if (failures > 0) {
                    long failed = failures;
                    tell(() -> pauses.resumed(failed));
                }
                return connection == null ? null : accepted.apply(connection);
            } catch (IOException e) {
                if (!delegate.isOpen()) {
                    throw e;
                }
                if (failures++ == 0) {
                    tell(() -> pauses.paused(e));
                }
            }
            pause(waitNanos);
            waitNanos = Math.min(waitNanos * 2, LONGEST_WAIT.toNanos());
        }
    }

    /**
     * Tells {@code pauses}; a failure there must not end the listener: with no descriptor free, a log handler may fail
     * to write, and a class not loaded yet may fail to load from a class-path directory (a {@link LinkageError}).
     */
    private static void tell(Runnable event) {
        try {
            event.run();
        } catch (RuntimeException | LinkageError e) {
            // Nothing to tell it with: the next accept goes on regardless.
        }
    }

    private void pause(long nanos) throws IOException {
        try {
            Thread.sleep(Duration.ofNanos(nanos));
        } catch (InterruptedException e) {
            // As a blocked accept would: an interrupt closes the channel (a stop closed it already).
            Thread.currentThread().interrupt();
            boolean wasOpen = delegate.isOpen();
            delegate.close();
            throw wasOpen ? new ClosedByInterruptException() : new AsynchronousCloseException();
        }
    }

    @Override
    public ServerSocketChannel bind(@Nullable SocketAddress local, int backlog) throws IOException {
        delegate.bind(local, backlog);
        return this;
    }

    @Override
    public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) throws IOException {
        delegate.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return delegate.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return delegate.supportedOptions();
    }

    @Override
    public ServerSocket socket() {
        return delegate.socket();
    }

    @Override
    public @Nullable SocketAddress getLocalAddress() throws IOException {
        return delegate.getLocalAddress();
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        delegate.close();
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        delegate.configureBlocking(block);
    }
}
