package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A server whose XREAD answers do not move past the id asked for: the reader takes it for a broken link and connects
 * again with backoff, instead of replaying the same batch for ever (never warm, a round trip after another) or
 * applying the same entries again and again.
 */
class SharingReaderIdsTest {
    private static final String REPLICA = "00bb";

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
    private final SharingMeters meters = TestSharingMeters.of(memory, clock);

    /** XREAD's answer: one stream of {@code count} of this replica's own acknowledgements, ids 1-1 … 1-count. */
    private static byte[] fullBatch(int count) {
        StringBuilder reply = new StringBuilder("*1\r\n*2\r\n")
                .append(bulk("test"))
                .append('*')
                .append(count);
        reply.append("\r\n");
        for (int i = 1; i <= count; i++) {
            reply.append("*2\r\n").append(bulk("1-" + i)).append("*8\r\n");
            for (String field : List.of("r", REPLICA, "o", "a", "i", "0-1", "t", "0")) {
                reply.append(bulk(field));
            }
        }
        return reply.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static String bulk(String value) {
        return "$" + value.length() + "\r\n" + value + "\r\n";
    }

    @Test
    void aReplayThatDoesNotAdvance_isABrokenLink() throws Exception {
        try (FakeRedis redis = new FakeRedis(fullBatch(SharingReader.COUNT))) {
            SharingReader reader = redis.reader(REPLICA, "test", memory, meters);
            Thread thread = Thread.ofVirtual().start(reader);
            try {
                assertThat(redis.asked("XREAD", false, 2))
                        .as("a full batch, then the same batch again")
                        .isTrue();
                assertThat(redis.asked("PING", true, 2))
                        .as("the reader connected again")
                        .isTrue();
                assertThat(reader.awaitWarm(0))
                        .as("never warm on what it cannot read")
                        .isFalse();
            } finally {
                thread.interrupt();
                thread.join();
            }
        }
    }
}
