package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Optional;
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

    @Test
    void read_declaredLength_returnsTheBodyInTheArrayItWasReadInto() throws IOException {
        byte[] body = bytes(32 * 1024);

        Optional<byte[]> read =
                BoundedBody.read(new Trickle(new ByteArrayInputStream(body), 1000), body.length, 1 << 20);

        assertThat(read).hasValueSatisfying(b -> assertThat(b).isEqualTo(body));
    }

    @Test
    void read_bodyLongerThanTheFirstBuffer_growsAndKeepsEveryByte() throws IOException {
        byte[] body = bytes(100_000);

        Optional<byte[]> read = BoundedBody.read(new Trickle(new ByteArrayInputStream(body), 777), 1024, 1 << 20);

        assertThat(read).hasValueSatisfying(b -> assertThat(b).isEqualTo(body));
    }

    @Test
    void read_bodyShorterThanTheFirstBuffer_trimmedToItsLength() throws IOException {
        byte[] body = bytes(10);

        Optional<byte[]> read = BoundedBody.read(new ByteArrayInputStream(body), 16 * 1024, 1 << 20);

        assertThat(read).hasValueSatisfying(b -> assertThat(b).isEqualTo(body));
    }

    @Test
    void read_bodyOfExactlyTheLimit_accepted() throws IOException {
        byte[] body = bytes(4096);

        assertThat(BoundedBody.read(new ByteArrayInputStream(body), 1024, 4096))
                .hasValueSatisfying(b -> assertThat(b).isEqualTo(body));
        assertThat(BoundedBody.read(new ByteArrayInputStream(body), 4096, 4096))
                .hasValueSatisfying(b -> assertThat(b).isEqualTo(body));
    }

    @Test
    void read_bodyOneByteOverTheLimit_refusedAfterReadingOneByteTooMany() throws IOException {
        Trickle grown = new Trickle(new ByteArrayInputStream(bytes(10_000)), 512);
        Trickle full = new Trickle(new ByteArrayInputStream(bytes(4097)), 512);

        assertThat(BoundedBody.read(grown, 1024, 4096)).isEmpty();
        assertThat(BoundedBody.read(full, 4096, 4096)).isEmpty();
        // An endless or huge body costs at most the limit plus one byte.
        assertThat(grown.handedOut).isEqualTo(4097);
        assertThat(full.handedOut).isEqualTo(4097);
    }

    @Test
    void read_emptyBody_empty() throws IOException {
        assertThat(BoundedBody.read(new ByteArrayInputStream(new byte[0]), 0, 10))
                .hasValueSatisfying(b -> assertThat(b).isEmpty());
        assertThat(Arrays.equals(
                        BoundedBody.read(new ByteArrayInputStream(new byte[0]), 64, 10)
                                .orElseThrow(),
                        new byte[0]))
                .isTrue();
    }
}
