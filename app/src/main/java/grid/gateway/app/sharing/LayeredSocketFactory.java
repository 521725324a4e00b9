package grid.gateway.app.sharing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Optional;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * The TLS socket factory the client is given for {@code rediss://}: the configured one (or the JVM's default, as the
 * client would take), which also remembers, for the connecting thread, the plain socket it layered TLS over. Closing
 * that plain socket ends a TLS write or {@code close_notify} blocked on a Redis that reads no more, which closing the
 * TLS socket cannot ({@link WriteDeadline}).
 *
 * <p>Thread-safe: what it remembers is the connecting thread's own, taken by {@link BoundedSocketFactory} right after.
 */
final class LayeredSocketFactory extends SSLSocketFactory {
    private static final ThreadLocal<@Nullable Socket> LAYERED = new ThreadLocal<>();

    private final SSLSocketFactory tls;

    LayeredSocketFactory(@Nullable SSLSocketFactory tls) {
        this.tls = tls != null ? tls : (SSLSocketFactory) SSLSocketFactory.getDefault();
    }

    /** The plain socket this thread's last TLS socket was layered over, forgotten as it is taken. */
    static Optional<Socket> take() {
        Socket plain = LAYERED.get();
        LAYERED.remove();
        return Optional.ofNullable(plain);
    }

    @Override
    public Socket createSocket(Socket plain, String host, int port, boolean autoClose) throws IOException {
        Socket layered = tls.createSocket(plain, host, port, autoClose);
        LAYERED.set(plain);
        return layered;
    }

    @Override
    public String[] getDefaultCipherSuites() {
        return tls.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
        return tls.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return tls.createSocket(host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return tls.createSocket(host, port, localHost, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return tls.createSocket(host, port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return tls.createSocket(address, port, localAddress, localPort);
    }
}
