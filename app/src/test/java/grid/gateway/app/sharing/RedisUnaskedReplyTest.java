package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis (or a proxy in front of it) that sends a reply to a command never sent: RESP carries no request ids, so the
 * client would take it for the answer to its next command, and every answer after for the one before. The
 * connection is refused and the reader connects again.
 */
class RedisUnaskedReplyTest {
    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
    private final SharingMeters meters = TestSharingMeters.of(memory, clock);

    @ParameterizedTest
    @ValueSource(
            strings = {
                "*-1\r\n", // another "nothing new", as XREAD's own answer is
                "+OK\r\n", // a status
                ":1\r\n", // an integer
            })
    void aReplyToNoCommand_afterXreadsAnswer_refused_theReaderConnectsAgain(String unasked) throws Exception {
        CapturedLog log = CapturedLog.of(RedisSharing.class);
        try (log;
                FakeRedis redis = new FakeRedis(null)) {
            redis.xread((command, out) -> out.write(("*-1\r\n" + unasked).getBytes(StandardCharsets.US_ASCII)));
            SharingReader reader = redis.reader("00bb", "test", memory, meters);
            Thread thread = Thread.ofVirtual().start(reader);
            try {
                assertThat(redis.asked("XREAD", true))
                        .as("the reader reads the stream")
                        .isTrue();
                assertThat(redis.asked(FakeRedis.CONNECTION, true, 2))
                        .as("the reader connected again")
                        .isTrue();
            } finally {
                thread.interrupt();
                thread.join();
            }
        }
        assertThat(log.records())
                .filteredOn(r -> r.getMessage().contains("the Redis stream failed"))
                .first()
                .satisfies(r -> assertThat(r.getMessage()).contains("Redis reply refused: 1 reply(s) to no command"));
    }
}
