package grid.gateway.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * A {@link RefusingPort} refuses connections and keeps its port from every other socket until it is closed; a port
 * found by binding and closing a socket is free for the next listener at once, which is why tests do not use one.
 */
class RefusingPortTest {
    private static final InetSocketAddress ANY_LOOPBACK_PORT = new InetSocketAddress(loopback(), 0);

    @Test
    void connectionsAreRefused() {
        try (RefusingPort port = new RefusingPort()) {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> connect(port.port())).isInstanceOf(ConnectException.class);
            }
            assertThat(port.url()).isEqualTo("http://127.0.0.1:" + port.port());
        }
    }

    @Test
    void noListenerCanBindThePort_evenOneThatReusesAddresses() throws IOException {
        try (RefusingPort port = new RefusingPort();
                ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true); // as Helidon's, the JDK's and redis-server's listeners do
            assertThatThrownBy(() -> listener.bind(new InetSocketAddress(loopback(), port.port())))
                    .isInstanceOf(BindException.class);
        }
    }

    @Test
    void aPortBoundThenClosed_isTheNextListenersForTheTaking() throws IOException {
        int closed;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(ANY_LOOPBACK_PORT);
            closed = probe.getLocalPort();
        }
        try (ServerSocket next = new ServerSocket()) {
            next.setReuseAddress(true);
            next.bind(new InetSocketAddress(loopback(), closed));
            assertThat(next.getLocalPort()).as("nothing kept the port").isEqualTo(closed);
        }
    }

    @Test
    void close_givesThePortBack() throws IOException {
        RefusingPort port = new RefusingPort();
        int number = port.port();
        port.close();
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress(loopback(), number));
            assertThat(listener.getLocalPort()).isEqualTo(number);
        }
    }

    private static void connect(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(loopback(), port), 10_000);
        }
    }

    private static InetAddress loopback() {
        return InetAddress.getLoopbackAddress();
    }
}
