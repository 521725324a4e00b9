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
 * bound that write. The close returns within its bound all the same. Nor does a close ever throw or leave the socket
 * open: after a quiet check that met the engine's reset, or when its close_notify cannot be written at all.
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

    /** A TLS connection to an engine whose TLS socket is layered over a TCP socket the test can reset. */
    private record Pair(UpstreamConnection connection, SocketChannel channel, java.net.Socket engineTcp) {}

    private Pair connected(TestPki pki, java.net.ServerSocket listener) throws Exception {
        CompletableFuture<java.net.Socket> accepted = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                java.net.Socket tcp = listener.accept();
                SSLSocket engine = (SSLSocket) pki.context(pki.issue("engine"))
                        .getSocketFactory()
                        .createSocket(tcp, "127.0.0.1", tcp.getPort(), false);
                engine.setUseClientMode(false);
                engine.startHandshake();
                // A byte of application data: the client reads what the handshake left behind it (TLS 1.3's session
                // tickets) with it, so that nothing is left to read on the channel.
                engine.getOutputStream().write('x');
                engine.getOutputStream().flush();
                accepted.complete(tcp);
            } catch (Exception e) {
                accepted.completeExceptionally(e);
            }
        });
        SocketChannel channel = SocketChannel.open(listener.getLocalSocketAddress());
        SSLSocket tls = (SSLSocket) pki.trustOnly()
                .getSocketFactory()
                .createSocket(channel.socket(), "127.0.0.1", listener.getLocalPort(), true);
        tls.startHandshake();
        assertThat(tls.getInputStream().read()).isEqualTo('x');
        java.net.Socket engineTcp = accepted.get(10, TimeUnit.SECONDS);
        UpstreamConnection connection =
                new UpstreamConnection(new Origin("127.0.0.1", listener.getLocalPort(), null), channel, tls, watchdog);
        return new Pair(connection, channel, engineTcp);
    }

    @Test
    @Timeout(60)
    void engineResetWhileIdle_notQuiet_theCloseThrowsNothingAndReleasesTheSocket() throws Exception {
        TestPki pki = TestPki.create(dir, "engine");
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Pair pair = connected(pki, listener);
            // The engine's TCP connection reset under its TLS, no close_notify: the quiet check's read fails.
            pair.engineTcp().setSoLinger(true, 0);
            pair.engineTcp().close();
            // Until the reset has come the connection is quiet; the test's timeout stops a reset that never comes.
            while (pair.connection().isQuiet()) {
                Thread.onSpinWait();
            }
            assertThat(pair.connection().leftoverFound())
                    .as("a reset, not bytes, ended the quiet")
                    .isFalse();
            org.assertj.core.api.Assertions.assertThatCode(pair.connection()::close)
                    .as("the close after a quiet check that met the reset")
                    .doesNotThrowAnyException();
            assertThat(pair.channel().isOpen()).isFalse();
        }
    }

    @Test
    @Timeout(60)
    void closeNotifyThatCannotBeWritten_theCloseThrowsNothingAndReleasesTheSocket() throws Exception {
        TestPki pki = TestPki.create(dir, "engine");
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Pair pair = connected(pki, listener);
            // A channel not in blocking mode: the TLS socket's close_notify write fails with a runtime exception.
            pair.channel().configureBlocking(false);
            org.assertj.core.api.Assertions.assertThatCode(pair.connection()::close)
                    .doesNotThrowAnyException();
            assertThat(pair.channel().isOpen()).isFalse();
            pair.engineTcp().close();
        }
    }
}
