package grid.gateway.app.http;

import io.helidon.common.socket.PeerInfo;
import io.helidon.webserver.http.ServerRequest;
import java.net.InetSocketAddress;

/**
 * The client's IP address as {@code X-Forwarded-For} carries it. Not the peer's host name: over TLS, Helidon's peer
 * host is the name the TLS socket resolved (say {@code localhost}), not the address the connection came from.
 *
 * <p>Stateless and thread-safe.
 */
public final class ClientAddress {
    private ClientAddress() {}

    /** The literal address of {@code request}'s peer, e.g. {@code 127.0.0.1} or {@code ::1}. */
    public static String of(ServerRequest request) {
        return of(request.remotePeer());
    }

    /** The literal address of {@code peer}. */
    static String of(PeerInfo peer) {
        if (peer.address() instanceof InetSocketAddress socket && socket.getAddress() != null) {
            return socket.getAddress().getHostAddress();
        }
        return peer.host();
    }
}
