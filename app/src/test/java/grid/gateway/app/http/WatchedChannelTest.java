package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.forward.SendTimedOut;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A connection the send watch cut says so in what its writes throw ({@link SendTimedOut}), the blocked one and every
 * one after it, so the request's access line can tell the gateway's cut from a client that left; a write that fails
 * on a connection the watch did not cut throws what the socket threw.
 */
class WatchedChannelTest {
    /** Far more than the kernel's buffers of both ends take: the write blocks while the peer reads nothing. */
    private static final int MORE_THAN_THE_BUFFERS = 64 << 20;

    @Test
    void writeBlockedOnAPeerThatReadsNothing_cut_failsWithSendTimedOut_soDoesTheNext() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open();
                SocketChannel peer = SocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            peer.setOption(StandardSocketOptions.SO_RCVBUF, 4096);
            peer.connect(listener.getLocalAddress());
            WatchedChannel watched =
                    new WatchedChannel(listener.accept(), "client", SystemMonotonicClock.INSTANCE, closed -> {});
            ByteBuffer answer = ByteBuffer.allocate(MORE_THAN_THE_BUFFERS);
            CompletableFuture<Throwable> blocked = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    // A blocking write: loops until every byte is written, as Helidon's socket writer does.
                    while (answer.hasRemaining()) {
                        watched.write(answer);
                    }
                    blocked.complete(null);
                } catch (IOException | RuntimeException e) {
                    blocked.complete(e);
                }
            });
            GatewayHarness.await("the write is blocked", () -> watched.writingSince() != SendWatch.IDLE);

            watched.cut();

            // The write blocked when the cut came fails, or (when it had written some bytes) returns them and the
            // next one fails: either way with the cause.
            assertThat(blocked.get()).isInstanceOf(SendTimedOut.class);
            assertThat(answer.hasRemaining()).isTrue();
            assertThat(catchWrite(watched)).isInstanceOf(SendTimedOut.class);
        }
    }

    @Test
    void writeOnAConnectionClosedOtherwise_failsAsTheSocketDoes() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open();
                SocketChannel peer = SocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            peer.connect(listener.getLocalAddress());
            WatchedChannel watched =
                    new WatchedChannel(listener.accept(), "client", SystemMonotonicClock.INSTANCE, closed -> {});

            watched.close();

            assertThat(catchWrite(watched)).isInstanceOf(IOException.class).isNotInstanceOf(SendTimedOut.class);
        }
    }

    private static Throwable catchWrite(WatchedChannel watched) {
        try {
            watched.write(ByteBuffer.allocate(1));
            return null;
        } catch (IOException e) {
            return e;
        }
    }
}
