package grid.gateway.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A {@link RedisProcess} keeps its port bound while its server is killed: connections are refused meanwhile, the
 * port is nobody else's to take, and a restart listens there again.
 */
class RedisProcessTest {
    @Test
    void killed_portRefusesAndCannotBeTaken_restartAnswersThere() throws IOException {
        try (RedisProcess redis = RedisProcess.start()) {
            assertThat(ping(redis.port())).isEqualTo("+PONG");

            redis.kill();
            assertThatThrownBy(() -> ping(redis.port())).isInstanceOf(ConnectException.class);
            try (ServerSocket other = new ServerSocket()) {
                // The port is still bound: the kernel gives it to no listener on port 0 and to no connection's own
                // end, and a socket that does not share addresses cannot bind it.
                other.setReuseAddress(false);
                assertThatThrownBy(() -> other.bind(new InetSocketAddress(loopback(), redis.port())))
                        .as("another socket binding the port of a killed Redis")
                        .isInstanceOf(BindException.class);
            }

            redis.restart();
            assertThat(ping(redis.port())).isEqualTo("+PONG");
        }
    }

    private static String ping(int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(loopback(), port), 10_000);
            socket.setSoTimeout(20_000);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] reply = socket.getInputStream().readNBytes(5);
            return new String(reply, StandardCharsets.US_ASCII);
        }
    }

    private static InetAddress loopback() throws IOException {
        return InetAddress.getByName("127.0.0.1");
    }
}
