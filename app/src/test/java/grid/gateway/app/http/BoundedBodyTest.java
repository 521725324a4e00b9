package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {
    private static byte[] bytes(int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + 7);
        }
        return bytes;
    }

    /** Hands out at most {@code chunk} bytes a read, as a socket does, and counts the bytes it handed out. */
    private static final class Trickle extends InputStream {
        private final InputStream in;
        private final int chunk;
        private long handedOut;

        Trickle(InputStream in, int chunk) {
            this.in = in;
            this.chunk = chunk;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                handedOut++;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, Math.min(length, chunk));
            if (n > 0) {
                handedOut += n;
            }
            return n;
        }
    }

    private static final long UNLIMITED = Long.MAX_VALUE;

    private static BoundedBody.Outcome read(InputStream in, long declared, long max) throws IOException {
        return BoundedBody.read(in, declared, max, new BodyBudget(() -> UNLIMITED).hold());
    }

    private static byte[] bytesOf(BoundedBody.Outcome outcome) {
        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.Read.class);
        return ((BoundedBody.Outcome.Read) outcome).bytes();
    }

    /** Hands out {@code first} bytes, then fails as a client that went away does. */
    private static final class GoneAfter extends InputStream {
        private int left;

        GoneAfter(int first) {
            this.left = first;
        }

        @Override
        public int read() throws IOException {
            if (left == 0) {
                throw new IOException("client gone");
            }
            left--;
            return 'x';
        }
    }

    @Test
    void read_declaredLength_returnsTheBody() throws IOException {
        byte[] body = bytes(32 * 1024);

        assertThat(bytesOf(read(new Trickle(new ByteArrayInputStream(body), 1000), body.length, 1 << 20)))
                .isEqualTo(body);
    }

    @Test
    void read_chunkedBodyLongerThanTheFirstBuffer_growsAndKeepsEveryByte() throws IOException {
        byte[] body = bytes(100_000);

        assertThat(bytesOf(read(new Trickle(new ByteArrayInputStream(body), 777), -1, 1 << 20)))
                .isEqualTo(body);
    }

    @Test
    void read_bodyShorterThanTheFirstBuffer_trimmedToItsLength() throws IOException {
        byte[] body = bytes(10);

        assertThat(bytesOf(read(new ByteArrayInputStream(body), -1, 1 << 20))).isEqualTo(body);
    }

    @Test
    void read_bodyOfExactlyTheLimit_accepted() throws IOException {
        byte[] body = bytes(4096);

        assertThat(bytesOf(read(new ByteArrayInputStream(body), -1, 4096))).isEqualTo(body);
        assertThat(bytesOf(read(new ByteArrayInputStream(body), 4096, 4096))).isEqualTo(body);
    }

    @Test
    void read_bodyOneByteOverTheLimit_refusedAfterReadingOneByteTooMany() throws IOException {
        Trickle grown = new Trickle(new ByteArrayInputStream(bytes(10_000)), 512);
        Trickle full = new Trickle(new ByteArrayInputStream(bytes(4097)), 512);

        assertThat(read(grown, -1, 4096)).isInstanceOf(BoundedBody.Outcome.TooLarge.class);
        assertThat(read(full, 4096, 4096)).isInstanceOf(BoundedBody.Outcome.TooLarge.class);
        // An endless or huge body costs at most the limit plus one byte.
        assertThat(grown.handedOut).isEqualTo(4097);
        assertThat(full.handedOut).isEqualTo(4097);
    }

    @Test
    void read_emptyBody_empty() throws IOException {
        assertThat(bytesOf(read(new ByteArrayInputStream(new byte[0]), 0, 10))).isEmpty();
        assertThat(bytesOf(read(new ByteArrayInputStream(new byte[0]), -1, 10))).isEmpty();
    }

    @Test
    void read_declares32MiBAndSendsOneByte_holdsOnlyTheFirstBuffer() {
        // The buffer follows the bytes that arrived, not the declared Content-Length.
        BodyBudget budget = new BodyBudget(() -> UNLIMITED);
        BodyBudget.Hold hold = budget.hold();

        assertThatThrownBy(() -> BoundedBody.read(new GoneAfter(1), 32L << 20, 64L << 20, hold))
                .isInstanceOf(IOException.class);

        assertThat(hold.held()).isEqualTo(BoundedBody.FIRST_BUFFER);
        assertThat(budget.inUse()).isEqualTo(BoundedBody.FIRST_BUFFER);
        hold.close();
        assertThat(budget.inUse()).isZero();
    }

    @Test
    void read_holdTracksTheLiveBuffer_atMostTwiceTheBytesRead() throws IOException {
        BodyBudget budget = new BodyBudget(() -> UNLIMITED);
        byte[] body = bytes(100_000);

        try (BodyBudget.Hold hold = budget.hold()) {
            bytesOf(BoundedBody.read(new Trickle(new ByteArrayInputStream(body), 4096), -1, 1 << 20, hold));
            assertThat(hold.held()).isBetween((long) body.length, 2L * body.length);
            // Declared: grown to exactly the declared length, never past it.
            try (BodyBudget.Hold declared = budget.hold()) {
                BoundedBody.read(new ByteArrayInputStream(body), body.length, 1 << 20, declared);
                assertThat(declared.held()).isEqualTo(body.length);
            }
        }
        assertThat(budget.inUse()).isZero();
    }

    @Test
    void read_pastTheBudget_overBudgetAndNothingLeftHeldAfterClose() throws IOException {
        BodyBudget budget = new BodyBudget(() -> 40_000);
        BodyBudget.Hold other = budget.hold();
        assertThat(other.reserve(10_000)).isTrue();

        try (BodyBudget.Hold hold = budget.hold()) {
            assertThat(BoundedBody.read(new ByteArrayInputStream(bytes(64_000)), -1, 1 << 20, hold))
                    .isInstanceOf(BoundedBody.Outcome.OverBudget.class);
            assertThat(budget.inUse()).isLessThanOrEqualTo(40_000);
        }
        assertThat(budget.inUse()).isEqualTo(10_000);
        // A small body still fits beside the other request's.
        try (BodyBudget.Hold hold = budget.hold()) {
            assertThat(bytesOf(BoundedBody.read(new ByteArrayInputStream(bytes(1000)), 1000, 1 << 20, hold)))
                    .hasSize(1000);
        }
        other.close();
        assertThat(budget.inUse()).isZero();
    }

    /** Counts the helper threads asked for, and runs each on a real virtual thread. */
    private static final class CountingHelper implements BoundedBody.Helper {
        int started;

        @Override
        public void start(Runnable read) {
            started++;
            Thread.ofVirtual().start(read);
        }
    }

    /** An alarm that only goes off when the test says so, and counts what was armed and cancelled. */
    private static final class ManualAlarm implements BodyDeadline.Alarm {
        final List<Runnable> armed = new ArrayList<>();
        int cancelled;

        @Override
        public Runnable arm(Duration delay, Runnable action) {
            armed.add(action);
            return () -> cancelled++;
        }

        void goOff() {
            armed.getLast().run();
        }
    }

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private static BoundedBody.Outcome readWith(byte[] body, long declared, long buffered, CountingHelper helper) {
        return BoundedBody.read(
                new BoundedBody.Arrival(() -> new ByteArrayInputStream(body), declared, buffered, null),
                UNLIMITED,
                new BodyBudget(() -> UNLIMITED).hold(),
                new BoundedBody.Waits(DEADLINE, helper, new ManualAlarm()));
    }

    private static BoundedBody.Outcome readWatched(
            Supplier<InputStream> body, long declared, Runnable endRead, CountingHelper helper, ManualAlarm alarm) {
        return BoundedBody.read(
                new BoundedBody.Arrival(body, declared, 0, endRead),
                UNLIMITED,
                new BodyBudget(() -> UNLIMITED).hold(),
                new BoundedBody.Waits(DEADLINE, helper, alarm));
    }

    @Test
    void read_bodyAlreadyBufferedWhole_readWithoutAHelperThread() {
        byte[] body = bytes(1024);
        CountingHelper helper = new CountingHelper();

        assertThat(bytesOf(readWith(body, body.length, body.length, helper))).isEqualTo(body);
        assertThat(bytesOf(readWith(body, body.length, body.length + 500L, helper)))
                .isEqualTo(body);
        assertThat(helper.started).isZero();
    }

    @Test
    void read_bodyNotYetBufferedWhole_readOnAHelperThread() {
        byte[] body = bytes(1024);
        CountingHelper helper = new CountingHelper();

        assertThat(bytesOf(readWith(body, body.length, body.length - 1L, helper)))
                .isEqualTo(body);
        assertThat(bytesOf(readWith(body, -1, 4096, helper))).isEqualTo(body);
        assertThat(bytesOf(readWith(body, body.length, -1, helper))).isEqualTo(body);
        assertThat(helper.started).isEqualTo(3);
    }

    @Test
    void read_bufferedBodyWhoseStreamFails_unreadable() {
        CountingHelper helper = new CountingHelper();
        BoundedBody.Outcome outcome = BoundedBody.read(
                new BoundedBody.Arrival(
                        () -> new InputStream() {
                            @Override
                            public int read() throws IOException {
                                throw new IOException("client went away");
                            }

                            @Override
                            public int read(byte[] buffer, int offset, int length) throws IOException {
                                throw new IOException("client went away");
                            }
                        },
                        10,
                        10,
                        null),
                UNLIMITED,
                new BodyBudget(() -> UNLIMITED).hold(),
                new BoundedBody.Waits(DEADLINE, helper, new ManualAlarm()));

        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.Unreadable.class);
        assertThat(((BoundedBody.Outcome.Unreadable) outcome).cause()).contains("client went away");
        assertThat(helper.started).isZero();
    }

    @Test
    void read_bodyNotYetArrivedWithAnEndableRead_readHereUnderAnAlarmThatIsCancelled() {
        byte[] body = bytes(40_000);
        CountingHelper helper = new CountingHelper();
        ManualAlarm alarm = new ManualAlarm();
        int[] ended = {0};

        BoundedBody.Outcome outcome = readWatched(
                () -> new Trickle(new ByteArrayInputStream(body), 8192), body.length, () -> ended[0]++, helper, alarm);

        assertThat(bytesOf(outcome)).isEqualTo(body);
        assertThat(helper.started).isZero();
        assertThat(alarm.armed).hasSize(1);
        assertThat(alarm.cancelled).isEqualTo(1);
        assertThat(ended[0]).isZero();
        alarm.goOff(); // a cancel that loses the race to the scheduler: the finished read is left alone
        assertThat(ended[0]).isZero();
    }

    @Test
    void read_deadlinePassesWhileTheReadWaits_readEndedAndTimedOut() {
        byte[] body = bytes(40_000);
        CountingHelper helper = new CountingHelper();
        ManualAlarm alarm = new ManualAlarm();
        boolean[] shut = {false};
        // Hands out 8 KiB, then "blocks": the deadline passes during the read (the alarm goes off on this thread, as
        // the scheduler's would while the read waits), and the read returns what a shut input gives: end of stream.
        Supplier<InputStream> stalls = () -> new InputStream() {
            private int left = 8192;

            @Override
            public int read() {
                throw new AssertionError("not read byte by byte here");
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                if (left > 0) {
                    int n = Math.min(left, length);
                    left -= n;
                    return n;
                }
                alarm.goOff();
                if (!shut[0]) {
                    throw new AssertionError("the alarm did not end the read");
                }
                throw new IOException("end of stream before Content-Length");
            }
        };

        BoundedBody.Outcome outcome = readWatched(stalls, body.length, () -> shut[0] = true, helper, alarm);

        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.TimedOut.class);
        assertThat(shut[0]).isTrue();
        assertThat(helper.started).isZero();
        assertThat(alarm.cancelled).isZero();
    }

    @Test
    void read_deadlinePassesJustAfterTheReadEnded_timedOutAndInputShut() {
        byte[] body = bytes(20_000);
        ManualAlarm alarm = new ManualAlarm();
        boolean[] shut = {false};
        // The whole body is read, and the alarm goes off before the handler's thread says so: the alarm won.
        Supplier<InputStream> endsLate = () -> new InputStream() {
            private final InputStream in = new ByteArrayInputStream(body);

            @Override
            public int read() throws IOException {
                return in.read();
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                int n = in.read(buffer, offset, length);
                if (n < 0) {
                    alarm.goOff();
                }
                return n;
            }
        };

        BoundedBody.Outcome outcome = readWatched(endsLate, -1, () -> shut[0] = true, new CountingHelper(), alarm);

        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.TimedOut.class);
        assertThat(shut[0]).isTrue();
    }

    @Test
    void read_watchedReadThatFailsBeforeTheDeadline_unreadableAndAlarmCancelled() {
        ManualAlarm alarm = new ManualAlarm();
        boolean[] shut = {false};

        BoundedBody.Outcome outcome =
                readWatched(() -> new GoneAfter(100), 5000, () -> shut[0] = true, new CountingHelper(), alarm);

        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.Unreadable.class);
        assertThat(alarm.cancelled).isEqualTo(1);
        assertThat(shut[0]).isFalse();
    }
}
