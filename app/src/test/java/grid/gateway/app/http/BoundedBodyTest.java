package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
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
        // Issue 13 finding 2: the buffer follows the bytes that arrived, not the declared Content-Length.
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

    private static BoundedBody.Outcome readWith(byte[] body, long declared, long buffered, CountingHelper helper) {
        return BoundedBody.read(
                new BoundedBody.Arrival(() -> new ByteArrayInputStream(body), declared, buffered),
                UNLIMITED,
                java.time.Duration.ofSeconds(30),
                new BodyBudget(() -> UNLIMITED).hold(),
                helper);
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
                        10),
                UNLIMITED,
                java.time.Duration.ofSeconds(30),
                new BodyBudget(() -> UNLIMITED).hold(),
                helper);

        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.Unreadable.class);
        assertThat(((BoundedBody.Outcome.Unreadable) outcome).cause()).contains("client went away");
        assertThat(helper.started).isZero();
    }
}
