package grid.gateway.app.listen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link PausingServerChannel}: a failed accept on an open channel is retried (one pause told, then its end), a closed
 * channel's failure ends the accept as before, and the real channel still hands out real connections.
 */
class PausingServerChannelTest {
    private final List<String> told = new ArrayList<>();
    private final PausingServerChannel.AcceptPauses pauses = new PausingServerChannel.AcceptPauses() {
        @Override
        public void paused(IOException cause) {
            told.add("paused: " + cause.getMessage());
        }

        @Override
        public void resumed(long failures) {
            told.add("resumed after " + failures);
        }
    };

    @Test
    void accept_failsWhileOpen_pausesOnce_thenResumes() throws IOException {
        try (ServerSocketChannel real = ServerSocketChannel.open();
                SocketChannel client = SocketChannel.open()) {
            real.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client.connect(real.getLocalAddress());
            Failing failing = new Failing(real, 3);
            PausingServerChannel channel = new PausingServerChannel(failing, pauses, UnaryOperator.identity());

            try (SocketChannel accepted = channel.accept()) {
                assertThat(accepted).isNotNull();
                assertThat(accepted.getRemoteAddress()).isEqualTo(client.getLocalAddress());
            }
            assertThat(failing.calls).isEqualTo(4);
            assertThat(told).containsExactly("paused: Too many open files", "resumed after 3");
            assertThat(channel.entered().getCount()).isZero();
        }
    }

    @Test
    void accept_failsOnceClosed_endsAsBefore() throws IOException {
        ServerSocketChannel real = ServerSocketChannel.open();
        real.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        PausingServerChannel channel = new PausingServerChannel(real, pauses, UnaryOperator.identity());
        channel.close();

        assertThat(channel.listening()).isFalse();
        assertThatThrownBy(channel::accept).isInstanceOf(IOException.class);
        assertThat(told).isEmpty();
    }

    @Test
    void accept_whenClosedByAStop_endsAsBefore_noPause() throws Exception {
        ServerSocketChannel real = ServerSocketChannel.open();
        real.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        PausingServerChannel channel = new PausingServerChannel(real, pauses, UnaryOperator.identity());
        List<Throwable> ended = new ArrayList<>();
        Thread acceptor = Thread.ofVirtual().start(() -> {
            try {
                channel.accept();
            } catch (IOException e) {
                ended.add(e);
            }
        });
        channel.entered().await();
        channel.close();
        acceptor.join();

        // Closed while blocked (AsynchronousCloseException) or just before it blocked: either way a closed channel.
        assertThat(ended).singleElement().isInstanceOf(ClosedChannelException.class);
        assertThat(told).isEmpty();
    }

    /** The real channel, whose first {@code failures} accepts fail as with no descriptor free. */
    private static final class Failing extends ServerSocketChannel {
        private final ServerSocketChannel real;
        private int failures;
        int calls;

        Failing(ServerSocketChannel real, int failures) {
            super(SelectorProvider.provider());
            this.real = real;
            this.failures = failures;
        }

        @Override
        public SocketChannel accept() throws IOException {
            calls++;
            if (failures-- > 0) {
                throw new IOException("Too many open files");
            }
            return real.accept();
        }

        @Override
        public ServerSocketChannel bind(SocketAddress local, int backlog) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> ServerSocketChannel setOption(SocketOption<T> name, T value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> T getOption(SocketOption<T> name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Set<SocketOption<?>> supportedOptions() {
            return Set.of();
        }

        @Override
        public ServerSocket socket() {
            return real.socket();
        }

        @Override
        public SocketAddress getLocalAddress() throws IOException {
            return real.getLocalAddress();
        }

        @Override
        protected void implCloseSelectableChannel() throws IOException {
            real.close();
        }

        @Override
        protected void implConfigureBlocking(boolean block) {}
    }
}
