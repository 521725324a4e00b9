package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.tls.TestPki;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.XAddParams;

/**
 * The connections {@link RedisEndpoint} opens, on real loopback sockets: over TLS ({@code rediss://}) the replies are
 * checked as over plain TCP, and the server's certificate and name are verified as the client does; the checked
 * socket's timeouts and close are the real socket's.
 */
class RedisEndpointTest {
    private static final byte[] TWO_GB = "$2000000000\r\nabc".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    private static SharingSettings settings(String url) {
        return new SharingSettings(
                Optional.of(URI.create(url)), "endpoint-test", Optional.empty(), Duration.ZERO, false, Duration.ZERO);
    }

    @Test
    void aPasswordFileLargerThanItsBound_isRefused_notReadWhole() throws Exception {
        Path file = dir.resolve("password");
        java.nio.file.Files.write(file, new byte[RedisEndpoint.PASSWORD_LIMIT + 1]);
        SharingSettings settings = new SharingSettings(
                Optional.of(URI.create("redis://127.0.0.1:6379/0")),
                "endpoint-test",
                Optional.of(file),
                Duration.ZERO,
                false,
                Duration.ZERO);

        assertThatThrownBy(() -> RedisEndpoint.of(settings))
                .isInstanceOf(java.io.UncheckedIOException.class)
                .hasRootCauseMessage("larger than 4096 bytes");
    }

    @Test
    void overTls_aReplyBeyondTheBoundsIsRefused_beforeTheClientAllocatesIt() throws Exception {
        TestPki pki = TestPki.create(dir, "redis");
        try (FakeRedis redis = new FakeRedis(TWO_GB, pki.context(pki.issue("redis")));
                Jedis jedis = RedisEndpoint.of(
                                settings("rediss://127.0.0.1:" + redis.port() + "/0"),
                                pki.trustOnly().getSocketFactory())
                        .open()) {
            assertThat(jedis.ping()).as("a reply within the bounds, over TLS").isEqualTo("PONG");
            assertThatThrownBy(() -> jedis.xadd("memo", XAddParams.xAddParams(), Map.of("k", "v")))
                    .isInstanceOf(JedisConnectionException.class)
                    .hasRootCauseInstanceOf(ProtocolException.class)
                    .hasRootCauseMessage("Redis reply refused: a bulk string of more than 8388608 bytes");
        }
    }

    @Test
    void overTls_aCertificateForAnotherNameIsRefused() throws Exception {
        TestPki pki = TestPki.create(dir, "redis");
        try (FakeRedis redis = new FakeRedis(TWO_GB, pki.context(pki.forName("redis", "redis.elsewhere")))) {
            RedisEndpoint endpoint = RedisEndpoint.of(
                    settings("rediss://127.0.0.1:" + redis.port() + "/0"),
                    pki.trustOnly().getSocketFactory());
            // The client connects as it is made (it names itself to Redis).
            assertThatThrownBy(endpoint::open)
                    .isInstanceOf(JedisConnectionException.class)
                    .hasStackTraceContaining("No subject alternative names matching IP address 127.0.0.1");
        }
    }

    @Test
    void overTls_anUntrustedCertificateIsRefused() throws Exception {
        TestPki pki = TestPki.create(dir, "redis");
        TestPki other = TestPki.create(dir, "other");
        try (FakeRedis redis = new FakeRedis(TWO_GB, other.context(other.issue("redis")))) {
            RedisEndpoint endpoint = RedisEndpoint.of(
                    settings("rediss://127.0.0.1:" + redis.port() + "/0"),
                    pki.trustOnly().getSocketFactory());
            assertThatThrownBy(endpoint::open)
                    .isInstanceOf(JedisConnectionException.class)
                    .hasStackTraceContaining("PKIX path building failed");
        }
    }

    @Test
    void theCheckedSocketsTimeoutAndCloseAreTheRealSockets() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket real = new Socket();
            real.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 2_000);
            try (Socket peer = server.accept();
                    BoundedSocket checked =
                            new BoundedSocket(real, real, RedisEndpoint.TIMEOUT_MILLIS, RedisEndpoint.REPLY_MILLIS)) {
                checked.setSoTimeout(50);
                assertThat(real.getSoTimeout()).isEqualTo(50);
                assertThat(checked.getSoTimeout()).isEqualTo(50);
                assertThat(checked.getRemoteSocketAddress()).isEqualTo(real.getRemoteSocketAddress());
                assertThat(checked.getLocalSocketAddress()).isEqualTo(real.getLocalSocketAddress());
                assertThat(checked.isConnected()).isTrue();
                assertThat(checked.isBound()).isTrue();
                assertThat(checked.getChannel()).as("no way around the check").isNull();
                InputStream in = checked.getInputStream();
                // The peer sends nothing: the read ends at the real socket's timeout.
                assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);
                // A command, then its reply: a reply to no command is refused (RedisUnaskedReplyTest).
                byte[] ping = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
                checked.getOutputStream().write(ping);
                assertThat(peer.getInputStream().readNBytes(ping.length)).isEqualTo(ping);
                peer.getOutputStream().write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(in.readNBytes(5)).asString(StandardCharsets.US_ASCII).isEqualTo("+OK\r\n");
                checked.shutdownOutput();
                assertThat(real.isOutputShutdown()).isTrue();
                assertThat(checked.isOutputShutdown()).isTrue();
                checked.close();
                assertThat(real.isClosed()).isTrue();
                assertThat(checked.isClosed()).isTrue();
                assertThat(peer.getInputStream().read())
                        .as("the peer sees the close")
                        .isEqualTo(-1);
            }
        }
    }
}
