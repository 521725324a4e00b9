package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.app.tls.TestPki;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis (or a proxy in front of it) that trickles its reply, a byte far within every read timeout, on real loopback
 * sockets, plain and TLS: the socket's read timeout bounds each read only, so the reader would wait on the reply for as
 * long as it trickles, applying no peer's entry and saying nothing. The deadline on the replies owed closes the
 * connection; the reader logs it and connects again.
 */
class RedisReplyDeadlineTest {
    private static final String REPLICA = "00bb";
    private static final long REPLY_MILLIS = 500;
    /** The reply's pace: one byte every 20 ms, far within the reader's read timeout (3 s). */
    private static final long PACE_MILLIS = 20;

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
    private final SharingMeters meters = TestSharingMeters.of(memory, clock);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(60)
    void aTrickledReply_isCutAtTheReplyDeadline_loggedAndConnectedAgain(boolean tls) throws Exception {
        TestPki pki = tls ? TestPki.create(dir, "redis") : null;
        CapturedLog log = CapturedLog.of(RedisSharing.class);
        try (FakeRedis redis = new FakeRedis(null, pki == null ? null : pki.context(pki.issue("redis")))) {
            redis.xread(RedisReplyDeadlineTest::trickle);
            SharingReader reader =
                    reader(redis, pki == null ? null : pki.trustOnly().getSocketFactory());
            Thread thread = Thread.ofVirtual().start(reader);
            try {
                assertThat(redis.asked("XREAD", true, 2))
                        .as("the trickled reply was cut and the reader asked again on a new connection")
                        .isTrue();
                assertThat(redis.asked(FakeRedis.CONNECTION, true, 2)).isTrue();
                assertThat(log.messages())
                        .anySatisfy(line -> assertThat(line).contains("Redis owed a reply for more than 500 ms"));
            } finally {
                thread.interrupt();
                thread.join();
            }
        } finally {
            log.close();
        }
    }

    /** A bulk string of a megabyte announced, its bytes sent one at a time until the connection is closed. */
    private static void trickle(List<String> command, OutputStream out) throws IOException {
        out.write("$1000000\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        try {
            while (true) {
                out.write('a');
                out.flush();
                Thread.sleep(PACE_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private SharingReader reader(FakeRedis redis, @Nullable SSLSocketFactory tls) {
        String scheme = tls == null ? "redis" : "rediss";
        SharingSettings settings = new SharingSettings(
                Optional.of(URI.create(scheme + "://127.0.0.1:" + redis.port() + "/0")),
                "reply-deadline-test",
                Optional.empty(),
                Duration.ZERO,
                false,
                Duration.ZERO);
        return new SharingReader(
                REPLICA,
                settings.stream(),
                RedisEndpoint.of(settings, tls, RedisEndpoint.TIMEOUT_MILLIS, REPLY_MILLIS),
                new SharingReader.Targets(memory, Optional.empty(), new PeerAcks(), id -> {}),
                new SharingPublisher.Context(meters, () -> 0, () -> 1_000, () -> 0));
    }
}
