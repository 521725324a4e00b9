package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.config.SharingSettings;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.load.PrefillBacklog;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The sharing threads over a Redis that answers what its client cannot parse, on real loopback sockets: both threads
 * drop the connection and reconnect with backoff, as after a reset, and share again once the server answers sanely;
 * a reply announcing more than the gateway reads is refused before the client allocates it.
 */
class RedisLinkRecoveryTest {
    private static final ClusterId EAST_A = new ClusterId(new SiteName("east"), "east-a");

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
    private final SharingMeters meters = TestSharingMeters.of(memory, clock);

    RedisLinkRecoveryTest() {
        memory.reconfigure(Set.of(EAST_A), PrefixAffinitySettings.defaults());
    }

    private static SharingSettings settings(FakeRedis redis) {
        return redis.settings("recovery-test");
    }

    private RedisSharing start(FakeRedis redis) {
        return RedisSharing.start(
                settings(redis), memory, new RedisSharing.Backlog(new PrefillBacklog(), clock), meters);
    }

    private void confirm(long... keys) {
        memory.confirm(EAST_A, BlockKeys.copyOf(keys, keys.length));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "%%%garbage\r\n", // a map whose length is not a number
                ":1\r\n", // an integer where a status, an id or an array belongs
                "*1\r\n$2\r\nno\r\n", // an array of a string where XREAD's streams belong
                "*2147483647\r\n", // an array longer than the JVM can allocate (refused on the connection)
                ">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n", // a RESP3 push where the reply belongs, no reply
                ">2\r\n$7\r\nmessage\r\n$1\r\nx\r\n:1\r\n", // a push before a wrong reply
                "|1\r\n+a\r\n+b\r\n:1\r\n" // a RESP3 attribute before a wrong reply
            })
    void bothThreadsReconnectAfterAReplyTheClientCannotParse(String reply) throws Exception {
        bothThreadsReconnectAfter(reply);
    }

    static Stream<Named<String>> beyondTheBounds() {
        return Stream.of(
                Named.of("a bulk string of 2 GB announced, a few bytes sent", "$2000000000\r\nabc"),
                Named.of("a bulk string just over the bound", "$" + (ReplyBounds.MAX_BULK + 1) + "\r\nabc"),
                Named.of("an array just over the bound", "*" + (ReplyBounds.MAX_ELEMENTS + 1) + "\r\n:1\r\n"),
                Named.of("arrays nested 100,000 deep", "*1\r\n".repeat(100_000)),
                Named.of("a status line without end", "+" + "a".repeat(ReplyBounds.MAX_LINE + 1)),
                Named.of("a negative length", "$-2\r\n"));
    }

    @ParameterizedTest
    @MethodSource("beyondTheBounds")
    void bothThreadsRefuseAReplyBeyondTheBounds_beforeTheClientReadsIt_andReconnect(String reply) throws Exception {
        List<String> warnings = linkLog(() -> bothThreadsReconnectAfter(reply)).stream()
                .filter(line -> line.startsWith("WARNING"))
                .toList();
        assertThat(warnings)
                .as("each thread's first failure is the refusal, not what the client made of the reply")
                .hasSize(2)
                .allSatisfy(line -> assertThat(line).contains("ProtocolException: Redis reply refused"));
    }

    private void bothThreadsReconnectAfter(String reply) throws Exception {
        try (FakeRedis redis = new FakeRedis(reply.getBytes(StandardCharsets.US_ASCII))) {
            try (RedisSharing sharing = start(redis)) {
                confirm(1, 2, 3);
                assertThat(redis.asked("XREAD", false))
                        .as("the reader was answered garbage")
                        .isTrue();
                assertThat(redis.asked("XADD", false))
                        .as("the publisher was answered garbage")
                        .isTrue();

                redis.answer(null);
                assertThat(redis.asked("XREAD", true))
                        .as("the reader connected again and reads the stream")
                        .isTrue();
                assertThat(meters.connected()).isTrue();
                confirm(4, 5, 6);
                assertThat(redis.asked("XADD", true))
                        .as("the publisher connected again and writes")
                        .isTrue();
            }
        }
    }

    @Test
    void aRedisThatRefusesEveryCommandIsLoggedOnceAThread_andItsReturnOnce() throws Exception {
        List<String> lines = linkLog(this::refusedEveryCommand_untilItAnswers);
        assertThat(lines)
                .filteredOn(line -> line.startsWith("WARNING"))
                .hasSize(2)
                .anySatisfy(line -> assertThat(line).contains("reading the Redis stream failed", "READONLY"))
                .anySatisfy(line -> assertThat(line).contains("publishing to the Redis stream failed", "READONLY"));
        assertThat(lines)
                .filteredOn(line -> line.startsWith("INFO"))
                .containsExactlyInAnyOrder(
                        "INFO prefix sharing: reading the Redis stream works again",
                        "INFO prefix sharing: publishing to the Redis stream works again");
    }

    private void refusedEveryCommand_untilItAnswers() throws Exception {
        try (FakeRedis redis = new FakeRedis("-READONLY You can't write against a read only replica.\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                RedisSharing sharing = start(redis)) {
            for (int batch = 0; batch < 3; batch++) {
                confirm(10 * batch + 1, 10 * batch + 2);
                assertThat(redis.asked("XADD", false)).isTrue();
            }
            assertThat(redis.asked("XREAD", false, 3))
                    .as("three attempts to read")
                    .isTrue();
            redis.answer(null);
            // Twice: the reader says it works again once its replay's read was answered, before it reads on, so its
            // second read was sent after its log line (the first alone may be in flight as the test ends).
            assertThat(redis.asked("XREAD", true, 2)).isTrue();
            confirm(100, 101);
            assertThat(redis.asked("XADD", true)).isTrue();
            // The publishing thread handles its batches in order: this one's write was sent after the last one's log.
            confirm(200, 201);
            assertThat(redis.asked("XADD", true)).isTrue();
        }
    }

    /** What {@code run} made the sharing threads log of their links: level and message, in order. */
    private static List<String> linkLog(Body run) throws Exception {
        CapturedLog log = CapturedLog.of(RedisSharing.class);
        try {
            run.run();
        } finally {
            log.close();
        }
        return log.records().stream()
                .filter(r -> r.getMessage().contains("the Redis stream"))
                .map(r -> r.getLevel() + " " + r.getMessage())
                .toList();
    }

    private interface Body {
        void run() throws Exception;
    }
}
