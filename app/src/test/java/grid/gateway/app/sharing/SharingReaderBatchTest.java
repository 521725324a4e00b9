package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The reader's batches against a server whose batch is larger in all than a reply may be ({@link ReplyBounds#MAX_REPLY})
 * though each of its values is within its own bound: refused, then asked again smaller, then whole again.
 */
class SharingReaderBatchTest {
    private static final String REPLICA = "00bb";
    /** A bulk string's bytes at the bound of one value. */
    private static final byte[] VALUE = new byte[ReplyBounds.MAX_BULK];

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
    private final SharingMeters meters = TestSharingMeters.of(memory, clock);

    static {
        Arrays.fill(VALUE, (byte) 'k');
    }

    /** The COUNT an XREAD asked for. */
    private static int count(List<String> command) {
        for (int i = 0; i < command.size() - 1; i++) {
            if (command.get(i).toUpperCase(Locale.ROOT).equals("COUNT")) {
                return Integer.parseInt(command.get(i + 1));
            }
        }
        return -1;
    }

    /**
     * One stream of {@code entries} entries, each one field of 8 MiB: within every bound of a part, over the bound of
     * the whole once more than 8 entries.
     */
    private static void batchOfLargeEntries(OutputStream out, int entries) throws java.io.IOException {
        out.write(("*1\r\n*2\r\n$4\r\ntest\r\n*" + entries + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (int i = 1; i <= entries; i++) {
            String id = "1-" + i;
            out.write(("*2\r\n$" + id.length() + "\r\n" + id + "\r\n*2\r\n$1\r\nk\r\n$" + VALUE.length + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(VALUE);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Test
    void aBatchOverTheReplyBound_refused_askedAgainAnEighth_thenWhole() throws Exception {
        BlockingQueue<Integer> asked = new LinkedBlockingQueue<>();
        AtomicInteger xreads = new AtomicInteger();
        try (FakeRedis redis = new FakeRedis(null)) {
            redis.xread((command, out) -> {
                asked.add(count(command));
                if (xreads.incrementAndGet() == 1) {
                    batchOfLargeEntries(out, 9); // 72 MiB: refused before the client holds it all
                } else {
                    out.write("*-1\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            });
            SharingReader reader = redis.reader(REPLICA, "test", memory, meters);
            Thread thread = Thread.ofVirtual().start(reader);
            try {
                assertThat(asked.poll(20, TimeUnit.SECONDS)).isEqualTo(SharingReader.COUNT);
                assertThat(asked.poll(20, TimeUnit.SECONDS))
                        .as("asked again after the refused batch, an eighth as large")
                        .isEqualTo(SharingReader.COUNT / SharingReader.SHRINK);
                assertThat(asked.poll(20, TimeUnit.SECONDS))
                        .as("a short batch: whole batches again")
                        .isEqualTo(SharingReader.COUNT);
                assertThat(reader.awaitWarm(20_000)).isTrue();
            } finally {
                thread.interrupt();
                thread.join();
            }
        }
    }
}
