package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.app.tls.TestPki;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis (or a proxy in front of it) that accepted the connection, answered, and then stopped reading, on real
 * loopback sockets, plain and TLS: the socket's read timeout does not bound a write, so a pipelined publish larger
 * than the socket buffers would block the publishing thread for ever. The write's own deadline closes the connection;
 * the batch counts as unsent and the publisher connects again.
 */
class RedisWriteDeadlineTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final long WRITE_MILLIS = 300;
    /** Confirmations queued as one batch, each of {@link #KEYS} keys: megabytes, far more than the buffers hold. */
    private static final int ENTRIES = 32;

    private static final int KEYS = 60_000;

    private final ManualClock clock = new ManualClock();
    private final SharingMeters meters =
            TestSharingMeters.of(new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1), clock);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "tls={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(60)
    void aPublishToARedisThatStoppedReading_isCutAtTheWriteDeadline_countedAsUnsent_andConnectedAgain(boolean tls)
            throws Exception {
        TestPki pki = tls ? TestPki.create(dir, "redis") : null;
        long unsent = meters.droppedSoFar(SharingMeters.Dropped.UNSENT);
        try (FakeRedis redis = FakeRedis.stallingAfter("XADD", pki == null ? null : pki.context(pki.issue("redis")))) {
            SharingPublisher publisher =
                    publisher(redis, pki == null ? null : pki.trustOnly().getSocketFactory());
            for (int entry = 0; entry < ENTRIES; entry++) {
                publisher.learned(EAST_A, keys(entry), true);
            }
            Thread thread = Thread.ofVirtual().start(publisher);
            try {
                assertThat(redis.asked("XADD", true))
                        .as("the batch's first XADD arrived")
                        .isTrue();
                assertThat(redis.asked(FakeRedis.RECONNECTION, true))
                        .as("the blocked write was cut and the publisher connected again")
                        .isTrue();
                // The client may open its next connection before the failed batch is counted (Jedis connects again
                // on its own when a command meets a closed socket), so the count is awaited.
                GatewayHarness.await(
                        "the batch counted as unsent",
                        () -> meters.droppedSoFar(SharingMeters.Dropped.UNSENT) - unsent >= ENTRIES);
                assertThat(meters.droppedSoFar(SharingMeters.Dropped.UNSENT) - unsent)
                        .as("the whole batch, counted as unsent")
                        .isEqualTo(ENTRIES);
                assertThat(thread.isAlive()).as("the publisher goes on").isTrue();
            } finally {
                thread.interrupt();
                thread.join();
            }
        }
    }

    private SharingPublisher publisher(FakeRedis redis, @Nullable SSLSocketFactory tls) {
        String scheme = tls == null ? "redis" : "rediss";
        SharingSettings settings = new SharingSettings(
                Optional.of(URI.create(scheme + "://127.0.0.1:" + redis.port() + "/0")),
                "write-deadline-test",
                Optional.empty(),
                Duration.ZERO,
                false,
                Duration.ZERO);
        return new SharingPublisher(
                "00aa",
                settings.stream(),
                RedisEndpoint.of(settings, tls, WRITE_MILLIS),
                new SharingPublisher.Context(meters, () -> 1_000, () -> 1_000, () -> 0),
                ENTRIES);
    }

    /** Keys no other entry shares, so that each is news in full. */
    private static BlockKeys keys(int entry) {
        long[] keys = new long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = (long) entry * KEYS + i + 1;
        }
        return BlockKeys.copyOf(keys, KEYS);
    }
}
