package grid.gateway.app.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.observe.SharingMeters;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.ManualClock;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A stream entry the reader can never read (a value larger than {@link ReplyBounds#MAX_BULK}, or one entry larger than
 * a whole reply may be): asked again alone, then stepped past and counted as malformed, so that no reconnect fetches
 * it again.
 */
class SharingReaderOversizedTest {
    private static final String REPLICA = "00bb";
    private static final String SMALL_ID = "4-1";
    private static final String LARGE_ID = "5-1";

    private final ManualClock clock = new ManualClock();
    private final PrefixMemory memory = new PrefixMemory(PrefixAffinitySettings.defaults(), clock, 1);
    private final SharingMeters meters = TestSharingMeters.of(memory, clock);

    /** An XREAD as the server saw it: the id asked after and the COUNT. */
    private record Asked(String after, int count) {}

    private static Asked asked(List<String> command) {
        int count = -1;
        for (int i = 0; i < command.size() - 1; i++) {
            if (command.get(i).toUpperCase(Locale.ROOT).equals("COUNT")) {
                count = Integer.parseInt(command.get(i + 1));
            }
        }
        return new Asked(command.getLast(), count);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** An entry of this replica's own (skipped unread): one field, {@code r}. */
    private static String smallEntry() {
        return "*2\r\n$3\r\n" + SMALL_ID + "\r\n*2\r\n$1\r\nr\r\n$4\r\n" + REPLICA + "\r\n";
    }

    /** The start of an entry whose value announces 9 MiB: refused at its length, before any of it is read. */
    private static String largeEntry() {
        return "*2\r\n$3\r\n" + LARGE_ID + "\r\n*2\r\n$1\r\nk\r\n$" + (9 << 20) + "\r\n";
    }

    private static void stream(OutputStream out, String... entries) throws IOException {
        out.write(ascii("*1\r\n*2\r\n$4\r\ntest\r\n*" + entries.length + "\r\n" + String.join("", entries)));
    }

    @Test
    void anEntryOverTheBounds_askedAloneOnce_thenSteppedPastAndCounted_neverFetchedAgain() throws Exception {
        BlockingQueue<Asked> asks = new LinkedBlockingQueue<>();
        AtomicInteger largeSent = new AtomicInteger();
        long malformedBefore = meters.droppedSoFar(SharingMeters.Dropped.MALFORMED);
        try (FakeRedis redis = new FakeRedis(null)) {
            redis.xread((command, out) -> {
                Asked asked = asked(command);
                asks.add(asked);
                switch (asked.after()) {
                    case "0-0" -> {
                        if (asked.count() == 1) {
                            stream(out, smallEntry());
                        } else {
                            largeSent.incrementAndGet();
                            stream(out, smallEntry(), largeEntry());
                        }
                    }
                    case SMALL_ID -> {
                        largeSent.incrementAndGet();
                        stream(out, largeEntry());
                    }
                    default -> out.write(ascii("*-1\r\n"));
                }
            });
            SharingReader reader = redis.reader(REPLICA, "test", memory, meters);
            Thread thread = Thread.ofVirtual().start(reader);
            try {
                assertThat(next(asks)).isEqualTo(new Asked("0-0", SharingReader.COUNT));
                assertThat(next(asks))
                        .as("a value too large in a batch: asked again one entry at a time")
                        .isEqualTo(new Asked("0-0", 1));
                assertThat(next(asks)).isEqualTo(new Asked(SMALL_ID, 1));
                assertThat(next(asks))
                        .as("the entry refused alone was stepped past")
                        .isEqualTo(new Asked(LARGE_ID, 1));
                assertThat(reader.awaitWarm(20_000)).isTrue();
                // Reading live on: each later XREAD asks after the stepped-past id.
                for (int i = 0; i < 3; i++) {
                    assertThat(next(asks).after()).isEqualTo(LARGE_ID);
                }
                assertThat(largeSent)
                        .as("the large entry was fetched in its batch and alone")
                        .hasValue(2);
                assertThat(meters.droppedSoFar(SharingMeters.Dropped.MALFORMED) - malformedBefore)
                        .isEqualTo(1);
            } finally {
                thread.interrupt();
                thread.join();
            }
        }
    }

    private static Asked next(BlockingQueue<Asked> asks) throws InterruptedException {
        Asked asked = asks.poll(20, TimeUnit.SECONDS);
        assertThat(asked).as("an XREAD within 20 s").isNotNull();
        return asked;
    }
}
