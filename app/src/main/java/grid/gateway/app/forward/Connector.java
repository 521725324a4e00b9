package grid.gateway.app.forward;

import io.helidon.common.tls.Tls;
import io.helidon.webclient.api.DnsAddressLookup;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLSocket;

/**
 * Opens connections to backend clusters: resolves the host ({@link HostKeepingResolver}: an IP literal stays the name
 * TLS checks), connects within the connect timeout with TCP_NODELAY (docs/design.md §H5), and for https shakes hands
 * within the same timeout with the cluster's {@link Tls}: its trust, its client certificate, SNI, and the HTTPS
 * identity check of the name (docs/tls.md). Every failure here is a connect failure: nothing was sent.
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

    /** Connects (and shakes hands) within {@code connectTimeout}. */
    Connector(Duration connectTimeout) {
        this.connectMillis = millis(connectTimeout);
    }

    /** A new connection to {@code origin}; a failure is a connect failure (the TLS handshake's included). */
    UpstreamConnection open(Origin origin) throws IOException {
        InetAddress address;
        try {
            address = HostKeepingResolver.INSTANCE.resolveAddress(origin.host(), DnsAddressLookup.defaultLookup());
        } catch (IllegalArgumentException unknown) {
            throw new java.net.UnknownHostException(origin.host());
        }
        InetSocketAddress target = new InetSocketAddress(address, origin.port());
        SocketChannel channel = SocketChannel.open();
        try {
            Socket plain = channel.socket();
            plain.setTcpNoDelay(true);
            plain.connect(target, connectMillis);
            Tls tls = origin.tls();
            Socket socket = tls == null ? plain : handshake(tls, plain, target);
            socket.setSoTimeout(0); // no timer per read: see the class comment
            return new UpstreamConnection(origin, channel, socket);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    private SSLSocket handshake(Tls tls, Socket plain, InetSocketAddress target) throws IOException {
        SSLSocket socket = tls.createSocket(ALPN, plain, target);
        try {
            socket.setSoTimeout(connectMillis);
            socket.startHandshake();
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** A socket timeout in milliseconds: 0 would mean none, so a positive duration is at least 1 ms. */
    private static int millis(Duration timeout) {
        long ms = timeout.toMillis();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
    }
}
