package grid.gateway.app.http;

import grid.gateway.app.forward.ClientProgress;
import io.helidon.webserver.http.ServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A client connection's unacknowledged bytes, read from the kernel's TCP table ({@link KernelTcpTable}) when the send
 * timeout's alarm looks at a write blocked on it, from a reading of its listener's rows shared with the other looks
 * ({@link ListenerTcpRows}). The connection is learnt from the request at the first look, so a request whose writes
 * never block costs nothing here.
 *
 * <p>Thread-safe: asked from the alarm's scheduler while the request's thread is blocked in a write.
 */
final class ClientSendQueue implements ClientProgress {
    /** Whether the kernel's table can be read here (Linux): elsewhere the send timeout counts from a write's start. */
    private static final boolean AVAILABLE = KernelTcpTable.available();

    private final ServerRequest request;
    private volatile KernelTcpTable.@Nullable Connection connection;

    private ClientSendQueue(ServerRequest request) {
        this.request = request;
    }

    /** The progress of {@code request}'s client, or {@link ClientProgress#NONE} where the kernel tells nothing. */
    static ClientProgress of(ServerRequest request) {
        return AVAILABLE ? new ClientSendQueue(request) : ClientProgress.NONE;
    }

    @Override
    public OptionalLong unacknowledged(long freshNanos) {
        try {
            KernelTcpTable.Connection client = connection();
            return client == null
                    ? OptionalLong.empty()
                    : ListenerTcpRows.KERNEL
                            .rows(client.localPort(), freshNanos)
                            .sendQueue(client);
        } catch (IOException | UncheckedIOException | IllegalStateException unreadable) {
            return OptionalLong.empty(); // no evidence either way: the write is timed from its start
        }
    }

    private KernelTcpTable.@Nullable Connection connection() {
        KernelTcpTable.Connection known = connection;
        if (known == null
                && request.localPeer().address() instanceof InetSocketAddress local
                && request.remotePeer().address() instanceof InetSocketAddress remote) {
            known = KernelTcpTable.Connection.of(local, remote);
            connection = known;
        }
        return known;
    }
}
