package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** A body longer than the first buffer is first read into a pooled buffer, never handed out, always given back. */
class ScratchBuffersTest {
    private static final long UNLIMITED = Long.MAX_VALUE;

    private static byte[] bytes(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return bytes;
    }

    private static byte[] read(byte[] body, long declared, ScratchBuffers pool) throws IOException {
        BoundedBody.Outcome outcome = BoundedBody.read(
                new ByteArrayInputStream(body), declared, 1 << 20, new BodyBudget(() -> UNLIMITED).hold(), pool);
        assertThat(outcome).isInstanceOf(BoundedBody.Outcome.Read.class);
        return ((BoundedBody.Outcome.Read) outcome).bytes();
    }

    @Test
    void read_bodiesLongerAndShorterThanTheFirstBuffer_neverShareThePooledBuffer() throws IOException {
        ScratchBuffers pool = new ScratchBuffers(4);
        int first = BoundedBody.FIRST_BUFFER;
        // Chunked bodies that end inside the pooled buffer, exactly at its end, and past it; then a declared one.
        byte[][] bodies = {bytes(10, 1), bytes(first, 2), bytes(first + 1, 3), bytes(40_000, 4)};
        long[] declared = {-1, -1, -1, 40_000};
        byte[][] read = new byte[bodies.length][];

        for (int i = 0; i < bodies.length; i++) {
            read[i] = read(bodies[i], declared[i], pool);
        }

        // Every later read went through the same pooled buffer: an earlier body aliasing it would have changed.
        for (int i = 0; i < bodies.length; i++) {
            assertThat(read[i]).isEqualTo(bodies[i]);
        }
        assertThat(pool.idle()).isEqualTo(1);
    }

    @Test
    void read_failingBody_givesThePooledBufferBack() {
        ScratchBuffers pool = new ScratchBuffers(4);
        InputStream gone = new InputStream() {
            private int left = 100;

            @Override
            public int read() throws IOException {
                if (left == 0) {
                    throw new IOException("client gone");
                }
                left--;
                return 'x';
            }
        };

        assertThatThrownBy(() -> BoundedBody.read(gone, 1 << 20, 1 << 21, new BodyBudget(() -> UNLIMITED).hold(), pool))
                .isInstanceOf(IOException.class);

        assertThat(pool.idle()).isEqualTo(1);
    }

    @Test
    void give_toAFullPool_keepsNoMoreThanItsBound() {
        ScratchBuffers pool = new ScratchBuffers(2);

        for (int i = 0; i < 3; i++) {
            pool.give(new byte[BoundedBody.FIRST_BUFFER]);
        }

        assertThat(pool.idle()).isEqualTo(2);
    }

    @Test
    void read_32KiBBody_allocatesTheBodyAndNoFirstBuffer() throws IOException {
        // The allocation a body costs is a contract of docs/failure-behaviour.md (body + a few hundred bytes); an
        // unpooled first buffer made a 32 KiB body cost 48 KiB.
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        ScratchBuffers pool = new ScratchBuffers(4);
        byte[] body = bytes(32 * 1024, 5);
        BodyBudget budget = new BodyBudget(() -> UNLIMITED);
        int reads = 64;
        for (int i = 0; i < reads; i++) {
            BoundedBody.read(new ByteArrayInputStream(body), body.length, 1 << 20, budget.hold(), pool);
        }
        ByteArrayInputStream[] streams = new ByteArrayInputStream[reads];
        BodyBudget.Hold[] holds = new BodyBudget.Hold[reads];
        for (int i = 0; i < reads; i++) {
            streams[i] = new ByteArrayInputStream(body);
            holds[i] = budget.hold();
        }
        long tid = Thread.currentThread().threadId();

        long before = threads.getThreadAllocatedBytes(tid);
        for (int i = 0; i < reads; i++) {
            BoundedBody.read(streams[i], body.length, 1 << 20, holds[i], pool);
        }
        long perRead = (threads.getThreadAllocatedBytes(tid) - before) / reads;

        assertThat(perRead).isBetween((long) body.length, body.length + 1024L);
    }
}
