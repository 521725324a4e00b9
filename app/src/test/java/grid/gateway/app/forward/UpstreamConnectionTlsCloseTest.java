package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.tls.SendBuffers;
import grid.gateway.app.tls.TestPki;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a TLS upstream connection, on real loopback sockets, whose engine stopped reading after the handshake and
 * whose send buffer is full, with no write in progress (a request body the kernel took whole, then an answer that
 * closes the connection): the close's {@code close_notify} finds no room, and the socket's read timeout does not
 * bound that write. The close returns within its bound all the same.
 */
class UpstreamConnectionTlsCloseTest {
    @TempDir
    Path dir;

    private final ScheduledThreadPoolExecutor watchdog = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stop() {
        watchdog.shutdownNow();
    }

    @Test
    @Timeout(60)
    void aFullSendBufferAndNoWriteInProgress_theCloseReturnsWithinItsBound() throws Exception {
        TestPki pki = TestPki.create(dir, "engine");
        try (SSLServerSocket listener = (SSLServerSocket)
                pki.context(pki.issue("engine")).getServerSocketFactory().createServerSocket()) {
            listener.setReceiveBufferSize(64 * 1024);
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            CompletableFuture<SSLSocket> accepted = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    SSLSocket engine = (SSLSocket) listener.accept();
                    engine.startHandshake(); // and then reads nothing
                    accepted.complete(engine);
                } catch (Exception e) {
                    accepted.completeExceptionally(e);
                }
            });
            SocketChannel channel = SocketChannel.open(listener.getLocalSocketAddress());
            SSLSocket tls = (SSLSocket) pki.trustOnly()
                    .getSocketFactory()
                    .createSocket(channel.socket(), "127.0.0.1", listener.getLocalPort(), true);
            tls.startHandshake();
            try (SSLSocket engine = accepted.get(10, TimeUnit.SECONDS)) {
                UpstreamConnection connection = new UpstreamConnection(
                        new Origin("127.0.0.1", listener.getLocalPort(), null), channel, tls, watchdog);
                SendBuffers.fill(channel);

                CompletableFuture<Void> closed =
                        CompletableFuture.runAsync(connection::close, Thread::startVirtualThread);
                assertThat(closed)
                        .as("the close, with no room for its close_notify")
                        .succeedsWithin(Duration.ofSeconds(10));
                assertThat(channel.isOpen()).isFalse();
            }
        }
    }
}
