package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.ClusterState;
import grid.gateway.app.observe.GatewayMetrics;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.Admission;
import grid.gateway.routing.load.OutlierEjector;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.load.QueueDepthWindow;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import io.helidon.metrics.api.MeterRegistry;
import io.helidon.service.registry.Services;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sharing threads over a Redis that answers what its client cannot parse, on real loopback sockets: both threads
 * drop the connection and reconnect with backoff, as after a reset, and share again once the server answers sanely.
 */
class RedisLinkRecoveryTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");
    private static final MeterRegistry REGISTRY = Services.get(MeterRegistry.class);
    /** Far above the first reconnect delays (100, 200, 400 ms): only a thread that gave up misses it. */
    private static final long SECONDS = 20;

    @ParameterizedTest
    @ValueSource(
            strings = {
                "%%%garbage\r\n", // a map whose length is not a number
                ":1\r\n", // an integer where a status, an id or an array belongs
                "*1\r\n$2\r\nno\r\n" // an array of a string where XREAD's streams belong
            })
    void bothThreadsReconnectAfterAReplyTheClientCannotParse(String reply) throws Exception {
        ManualClock clock = new ManualClock();
        PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
        memory.reconfigure(Set.of(EAST_A), PrefixAffinitySettings.defaults());
        SharingMeters meters = new GatewayMetrics(
                        REGISTRY,
                        new ClusterState(
                                () -> Grid.of(new SiteName("east"), List.of()),
                                new Admission(new QueueDepthWindow(Duration.ofSeconds(10)), new OutlierEjector()),
                                memory,
                                clock))
                .sharing();
        try (FakeRedis redis = new FakeRedis(reply.getBytes(StandardCharsets.US_ASCII))) {
            SharingSettings settings = new SharingSettings(
                    Optional.of(URI.create("redis://127.0.0.1:" + redis.port() + "/0")),
                    "recovery-test",
                    Optional.empty(),
                    Duration.ZERO,
                    false,
                    Duration.ZERO);
            try (RedisSharing sharing = RedisSharing.start(
                    settings, memory, new RedisSharing.Backlog(new PrefillBacklog(), clock), meters)) {
                memory.confirm(EAST_A, BlockKeys.copyOf(new long[] {1, 2, 3}, 3));
                assertThat(redis.asked("XREAD", false).await(SECONDS, TimeUnit.SECONDS))
                        .as("the reader was answered garbage")
                        .isTrue();
                assertThat(redis.asked("XADD", false).await(SECONDS, TimeUnit.SECONDS))
                        .as("the publisher was answered garbage")
                        .isTrue();

                redis.answer(null);
                assertThat(redis.asked("XREAD", true).await(SECONDS, TimeUnit.SECONDS))
                        .as("the reader connected again and reads the stream")
                        .isTrue();
                assertThat(meters.connected()).isTrue();
                memory.confirm(EAST_A, BlockKeys.copyOf(new long[] {4, 5, 6}, 3));
                assertThat(redis.asked("XADD", true).await(SECONDS, TimeUnit.SECONDS))
                        .as("the publisher connected again and writes")
                        .isTrue();
            }
        }
    }
}
