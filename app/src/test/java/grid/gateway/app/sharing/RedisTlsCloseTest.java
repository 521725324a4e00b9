package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.tls.SendBuffers;
import grid.gateway.app.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a {@code rediss://} connection, on real loopback sockets, whose Redis stopped reading and whose send buffer
 * is full with no write in progress (a publish the kernel took whole, then its reply timed out): the TLS close's
 * {@code close_notify} finds no room, and the read timeout does not bound that write. The close returns at the write
 * deadline all the same, the plain socket under the TLS one closed.
 */
class RedisTlsCloseTest {
    private static final long WRITE_MILLIS = 300;

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void aFullSendBufferAndNoWriteInProgress_theCloseReturnsAtTheWriteDeadline() throws Exception {
        TestPki pki = TestPki.create(dir, "redis");
        try (SSLServerSocket listener = (SSLServerSocket)
                pki.context(pki.issue("redis")).getServerSocketFactory().createServerSocket()) {
            listener.setReceiveBufferSize(64 * 1024);
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<SSLSocket> accepted = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    SSLSocket redis = (SSLSocket) listener.accept();
                    redis.startHandshake(); // and then reads nothing
                    accepted.complete(redis);
                } catch (Exception e) {
                    accepted.completeExceptionally(e);
                }
            });
            SocketChannel channel = SocketChannel.open(listener.getLocalSocketAddress());
            Socket plain = channel.socket();
            plain.setSoLinger(true, 0); // as the client sets it
            SSLSocket tls = (SSLSocket)
                    pki.trustOnly().getSocketFactory().createSocket(plain, "127.0.0.1", listener.getLocalPort(), true);
            tls.startHandshake();
            try (SSLSocket redis = accepted.get(10, TimeUnit.SECONDS)) {
                BoundedSocket socket = new BoundedSocket(tls, plain, WRITE_MILLIS, RedisEndpoint.REPLY_MILLIS);
                SendBuffers.fill(channel);

                CompletableFuture<Void> closed = CompletableFuture.runAsync(
                        () -> {
                            try {
                                socket.close();
                            } catch (java.io.IOException expected) {
                                // the close_notify was cut short
                            }
                        },
                        Thread::startVirtualThread);
                assertThat(closed)
                        .as("the close, with no room for its close_notify")
                        .succeedsWithin(Duration.ofSeconds(10));
                assertThat(plain.isClosed()).isTrue();
            }
        }
    }
}
