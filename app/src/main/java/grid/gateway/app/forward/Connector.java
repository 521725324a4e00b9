package grid.gateway.app.forward;

import io.helidon.common.tls.Tls;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLSocket;

/**
 * Opens connections to backend clusters: resolves the host ({@link HostKeepingResolver}: an IP literal stays the name
 * TLS checks; {@link HostLookups}: within the connect timeout), connects within what is left of it with TCP_NODELAY (docs/design.md §H5), and for https shakes hands
 * with the cluster's {@link Tls}: its trust, its client certificate, SNI, and the HTTPS identity check of the name
 * (docs/tls.md). Every failure here is a connect failure: nothing was sent.
 *
 * <p>The lookup, the connect and the handshake together end within the connect timeout. A socket timeout bounds only each read
 * of the handshake: a server that trickles its flight (a record header announcing 16 KiB, then a byte a second) would
 * hold the request for hours, its client without an answer. So an alarm on the watchdog closes the channel when the
 * timeout has passed, which ends the handshake's blocked read at once.
 *
 * <p>An open connection's reads have no socket timeout: the answer's head is read within its own deadline
 * ({@link AnswerReader#deadline}) and every read of a body is watched by the exchange's {@link IdleAlarm}. A socket
 * timeout on a virtual thread schedules and cancels a timer on every read that waits, once for each event of every
 * stream, and the alarm already bounds the wait.
 *
 * <p>Thread-safe (immutable).
 */
final class Connector {
    /** ALPN offers HTTP/1.1 only: the gateway speaks nothing else upstream. */
    private static final List<String> ALPN = List.of("http/1.1");

    private final int connectMillis;
    private final ScheduledExecutorService watchdog;
    private final HostLookups lookups;

    /**
     * Looks the host up, connects and shakes hands within {@code connectTimeout}; {@code watchdog} runs the
     * handshake's deadline.
     */
    Connector(Duration connectTimeout, ScheduledExecutorService watchdog) {
        this(connectTimeout, watchdog, HostLookups.system());
    }

    /** The same, names looked up by {@code lookups} (tests). */
    Connector(Duration connectTimeout, ScheduledExecutorService watchdog, HostLookups lookups) {
        this.connectMillis = millis(connectTimeout);
        this.watchdog = watchdog;
        this.lookups = lookups;
    }

    /** A new connection to {@code origin}; a failure is a connect failure (the lookup's and TLS handshake's included). */
    UpstreamConnection open(Origin origin) throws IOException {
        long start = System.nanoTime();
        InetAddress address = lookups.resolve(origin.host(), TimeUnit.MILLISECONDS.toNanos(connectMillis));
        InetSocketAddress target = new InetSocketAddress(address, origin.port());
        int left = leftMillis(start);
        if (left <= 0) {
            throw new SocketTimeoutException("connect timed out looking up " + origin.host());
        }
        SocketChannel channel = SocketChannel.open();
        try {
            Socket plain = channel.socket();
            plain.setTcpNoDelay(true);
            plain.connect(target, left);
            Tls tls = origin.tls();
            Socket socket = tls == null ? plain : handshake(tls, channel, target, start);
            socket.setSoTimeout(0); // no timer per read: see the class comment
            return new UpstreamConnection(origin, channel, socket, watchdog);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** What is left of the connect timeout begun at {@code start}, in milliseconds. */
    private int leftMillis(long start) {
        long left = connectMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return (int) Math.max(0, left);
    }

    /**
     * Shakes hands over {@code channel}'s socket, done by {@code start} plus the connect timeout: whichever of the
     * handshake's end and the alarm comes first decides, once.
     */
    private SSLSocket handshake(Tls tls, SocketChannel channel, InetSocketAddress target, long start)
            throws IOException {
        long left = TimeUnit.MILLISECONDS.toNanos(connectMillis) - (System.nanoTime() - start);
        if (left <= 0) {
            throw new SocketTimeoutException("connect timed out before the TLS handshake");
        }
        SSLSocket socket = tls.createSocket(ALPN, channel.socket(), target);
        AtomicBoolean decided = new AtomicBoolean();
        ScheduledFuture<?> alarm = watchdog.schedule(
                () -> {
                    if (decided.compareAndSet(false, true)) {
                        closeQuietly(channel);
                    }
                },
                left,
                TimeUnit.NANOSECONDS);
        try {
            socket.setSoTimeout(connectMillis);
            socket.startHandshake();
            if (!decided.compareAndSet(false, true)) {
                throw new SocketTimeoutException("connect timed out in the TLS handshake");
            }
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            if (!decided.compareAndSet(false, true) && !(e instanceof SocketTimeoutException)) {
                // The alarm closed the channel under the handshake's read: a timeout, not the server's refusal.
                throw new SocketTimeoutException("connect timed out in the TLS handshake (" + e + ")");
            }
            throw e;
        } finally {
            alarm.cancel(false);
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // Closing: the handshake's read fails either way.
        }
    }

    /** A socket timeout in milliseconds: 0 would mean none, so a positive duration is at least 1 ms. */
    private static int millis(Duration timeout) {
        long ms = timeout.toMillis();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
    }
}
