package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.time.MonotonicClock;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The body writer on a real socket whose peer reads nothing: what it holds once an answer stopped it while a slice is
 * blocked in a write.
 */
class BodyWriterTest {
    private final ScheduledThreadPoolExecutor watchdog = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void stop() {
        watchdog.shutdownNow();
    }

    @Test
    void stoppedWhileASliceIsBlocked_theBodyIsLetGoOfAtOnce() throws Exception {
        try (ServerSocket server = new ServerSocket()) {
            server.setReceiveBufferSize(64 * 1024);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel channel = SocketChannel.open(server.getLocalSocketAddress());
            try (Socket engine = server.accept()) {
                UpstreamConnection connection = new UpstreamConnection(
                        new Origin("127.0.0.1", server.getLocalPort(), null), channel, channel.socket(), watchdog);
                // The engine reads nothing: once the kernel's buffers are full, every write blocks.
                byte[] filler = new byte[256 * 1024];
                while (connection.writeWithoutWaiting(filler, 0, filler.length) > 0) {
                    // The kernel took some and may take more.
                }
                // The alarm reads its clock as a write begins: the writer is in its first slice's write from then.
                CountDownLatch writing = new CountDownLatch(1);
                MonotonicClock clock = () -> {
                    writing.countDown();
                    return System.nanoTime();
                };
                IdleAlarm alarm = IdleAlarm.arm(watchdog, clock, Duration.ofHours(1), connection::close);
                WeakReference<byte[]> body = new WeakReference<>(new byte[8 * 1024 * 1024]);
                BodyWriter writer = BodyWriter.start(connection, body.get(), 0, alarm, AnswerMemory.NONE);
                assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();

                // An answer came first: the rest of the body is not sent, and the slice stays blocked until the
                // connection closes after that answer.
                writer.stop();
                System.gc();
                assertThat(body.get())
                        .as("the body, once the writer was stopped with a slice blocked")
                        .isNull();
                assertThat(writer.writtenWithin(Duration.ZERO)).isFalse();

                connection.close();
                assertThat(writer.writtenWithin(Duration.ofSeconds(10))).isFalse();
            }
        }
    }

    @Test
    void anEngineThatReadsEverything_theWholeBodyArrivesInOrder() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            SocketChannel channel = SocketChannel.open(server.getLocalSocketAddress());
            try (Socket engine = server.accept()) {
                UpstreamConnection connection = new UpstreamConnection(
                        new Origin("127.0.0.1", server.getLocalPort(), null), channel, channel.socket(), watchdog);
                byte[] body = new byte[3 * BodyWriter.SLICE + 123];
                for (int i = 0; i < body.length; i++) {
                    body[i] = (byte) (i * 31 + i / 251);
                }
                IdleAlarm alarm = IdleAlarm.arm(watchdog, System::nanoTime, Duration.ofHours(1), connection::close);
                BodyWriter writer = BodyWriter.start(connection, body, 100, alarm, AnswerMemory.NONE);
                byte[] received = engine.getInputStream().readNBytes(body.length - 100);
                assertThat(writer.writtenWithin(Duration.ofSeconds(10))).isTrue();
                assertThat(received).isEqualTo(java.util.Arrays.copyOfRange(body, 100, body.length));
                connection.close();
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
    }
}
