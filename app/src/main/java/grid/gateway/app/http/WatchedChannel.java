package grid.gateway.app.http;

import grid.gateway.app.forward.SendTimedOut;
import grid.gateway.app.forward.SendTimeoutClaim;
import grid.gateway.routing.time.MonotonicClock;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * An accepted client connection whose writes {@link SendWatch} times: each write stamps when it began and is counted,
 * and clears its stamp when it returns. Every byte Helidon writes to the client passes here (answers relayed or the
 * gateway's own, Helidon's own refusals, TLS records), so no write can wait on a client for ever.
 *
 * <p>Every operation is the accepted channel's; closing this closes it.
 *
 * <p>Thread-safe as the accepted channel is; the stamps are written by the connection's thread and read by the
 * watch's sweeps.
 */
final class WatchedChannel extends SocketChannel implements SendWatch.Watched {
    private final SocketChannel delegate;
    private final String listener;
    private final MonotonicClock clock;
    private final Consumer<WatchedChannel> closed;
    private final AtomicLong writes = new AtomicLong();
    private final SendTimeoutClaim timeoutClaim = SendTimeoutClaim.once();
    /** When the write in progress began, or {@link #SendWatch.IDLE}. */
    private volatile long writingSince = SendWatch.IDLE;

    private volatile KernelTcpTable.@Nullable Connection connection;
    /** Whether the send watch closed the connection ({@link #cut()}): a write that fails then says why. */
    private volatile boolean cut;

    WatchedChannel(SocketChannel delegate, String listener, MonotonicClock clock, Consumer<WatchedChannel> closed) {
        super(delegate.provider());
        this.delegate = delegate;
        this.listener = listener;
        this.clock = clock;
        this.closed = closed;
    }

    /** When the write in progress began, or {@link #SendWatch.IDLE}. */
    @Override
    public long writingSince() {
        return writingSince;
    }

    /** How many writes began: a look at a blocked write tells by it whether it looked at this one before. */
    @Override
    public long writes() {
        return writes.get();
    }

    /** Whether the accepted channel is still open (an interrupt of a blocked write closes it, not this). */
    @Override
    public boolean connectionOpen() {
        return delegate.isOpen();
    }

    /**
     * Closes the connection: the write blocked on it fails with {@link SendTimedOut}, as does every write after it, and
     * its request ends.
     */
    @Override
    public void cut() {
        cut = true;
        try {
            close();
        } catch (IOException alreadyGone) {
            // Closed either way.
        }
    }

    /** This connection as the kernel's TCP table lists it, or null when its addresses cannot be read. */
    @Override
    public KernelTcpTable.@Nullable Connection connection() {
        KernelTcpTable.Connection known = connection;
        if (known == null) {
            try {
                if (delegate.getLocalAddress() instanceof InetSocketAddress local
                        && delegate.getRemoteAddress() instanceof InetSocketAddress remote) {
                    known = KernelTcpTable.Connection.of(local, remote);
                    connection = known;
                }
            } catch (IOException closedAlready) {
                return null;
            }
        }
        return known;
    }

    @Override
    public String listener() {
        return listener;
    }

    @Override
    public SendTimeoutClaim timeoutClaim() {
        return timeoutClaim;
    }

    @Override
    public int write(ByteBuffer source) throws IOException {
        stamp();
        try {
            return delegate.write(source);
        } catch (IOException e) {
            throw cut ? new SendTimedOut(e) : e;
        } finally {
            writingSince = SendWatch.IDLE;
        }
    }

    @Override
    public long write(ByteBuffer[] sources, int offset, int length) throws IOException {
        stamp();
        try {
            return delegate.write(sources, offset, length);
        } catch (IOException e) {
            throw cut ? new SendTimedOut(e) : e;
        } finally {
            writingSince = SendWatch.IDLE;
        }
    }

    private void stamp() {
        writes.incrementAndGet();
        writingSince = clock.nanoTime();
    }

    @Override
    public int read(ByteBuffer target) throws IOException {
        return delegate.read(target);
    }

    @Override
    public long read(ByteBuffer[] targets, int offset, int length) throws IOException {
        return delegate.read(targets, offset, length);
    }

    @Override
    public SocketChannel bind(@Nullable SocketAddress local) throws IOException {
        delegate.bind(local);
        return this;
    }

    @Override
    public <T> SocketChannel setOption(SocketOption<T> name, T value) throws IOException {
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
    public SocketChannel shutdownInput() throws IOException {
        delegate.shutdownInput();
        return this;
    }

    @Override
    public SocketChannel shutdownOutput() throws IOException {
        delegate.shutdownOutput();
        return this;
    }

    @Override
    public Socket socket() {
        return delegate.socket();
    }

    @Override
    public boolean isConnected() {
        return delegate.isConnected();
    }

    @Override
    public boolean isConnectionPending() {
        return delegate.isConnectionPending();
    }

    @Override
    public boolean connect(SocketAddress remote) throws IOException {
        return delegate.connect(remote);
    }

    @Override
    public boolean finishConnect() throws IOException {
        return delegate.finishConnect();
    }

    @Override
    public @Nullable SocketAddress getRemoteAddress() throws IOException {
        return delegate.getRemoteAddress();
    }

    @Override
    public @Nullable SocketAddress getLocalAddress() throws IOException {
        return delegate.getLocalAddress();
    }

    @Override
    protected void implCloseSelectableChannel() throws IOException {
        try {
            delegate.close();
        } finally {
            closed.accept(this);
        }
    }

    @Override
    protected void implConfigureBlocking(boolean block) throws IOException {
        delegate.configureBlocking(block);
    }
}
