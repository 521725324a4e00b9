package grid.gateway.app.http;

import io.helidon.webserver.http.ServerRequest;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The client's IP address as {@code X-Forwarded-For} carries it. Not the peer's host name: over TLS, Helidon's peer
 * host is the name the TLS socket resolved (say {@code localhost}), not the address the connection came from.
 *
 * <p>The text of the latest IPv4 address is kept: every request asks for it twice (access line, {@code
 * X-Forwarded-For}) and {@code getHostAddress} builds a new string each time; clients behind one load balancer share
 * one address. IPv6 is not cached: two such addresses can be equal and still differ in scope, hence in text.
 *
 * <p>Thread-safe: the cached pair is one immutable object behind a volatile field.
 */
public final class ClientAddress {
    private static volatile Text latest = new Text(
            InetAddress.getLoopbackAddress(), InetAddress.getLoopbackAddress().getHostAddress());

    private ClientAddress() {}

    /** The literal address of {@code request}'s peer, e.g. {@code 127.0.0.1} or {@code ::1}. */
    public static String of(ServerRequest request) {
        if (request.remotePeer().address() instanceof InetSocketAddress socket && socket.getAddress() != null) {
            return text(socket.getAddress());
        }
        return request.remotePeer().host();
    }

    /** {@code address.getHostAddress()}, from the cache for the latest IPv4 address. Package-private for tests. */
    static String text(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            return address.getHostAddress();
        }
        Text cached = latest;
        if (cached.address.equals(address)) {
            return cached.text;
        }
        String text = address.getHostAddress();
        latest = new Text(address, text);
        return text;
    }

    private record Text(InetAddress address, String text) {}
}
