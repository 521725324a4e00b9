package grid.gateway.app.bench.streams;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;

/**
 * How fast a stream's client reads: as fast as events come, or a slow reader that, once the answer's head is read,
 * takes one byte at a time at a fixed rate into a small receive buffer, so its socket fills and the proxy must stop
 * reading its engine (or hold what it read).
 *
 * <p>Thread-safe (immutable).
 */
record ReadPace(boolean slow, long bytesPerSecond) {
    static final ReadPace FAST = new ReadPace(false, 0);

    static ReadPace slow(long bytesPerSecond) {
        return new ReadPace(true, bytesPerSecond);
    }

    void configure(Socket socket) throws IOException {
        socket.setTcpNoDelay(true);
        if (slow) {
            socket.setReceiveBufferSize(4096);
        }
    }

    int bufferSize() {
        return slow ? 1 : 4096;
    }

    /** The socket's stream as this pace reads it; {@link #bodyStarts} switches a slow reader's pacing on. */
    InputStream wrap(InputStream in) {
        return slow ? new Paced(in, 1_000_000_000L / Math.max(1, bytesPerSecond)) : new BufferedInputStream(in, 4096);
    }

    /** The head was read: from now on a slow reader reads at its rate. */
    void bodyStarts(InputStream in) {
        if (in instanceof Paced paced) {
            paced.pacing = true;
        }
    }

    /** Unbuffered, so that nothing is read ahead of the pace. */
    private static final class Paced extends FilterInputStream {
        private final long gapNanos;
        private boolean pacing;
        private long next = System.nanoTime();

        Paced(InputStream in, long gapNanos) {
            super(in);
            this.gapNanos = gapNanos;
        }

        @Override
        public int read() throws IOException {
            pause();
            return super.read();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            pause();
            return super.read(b, off, Math.min(len, 1));
        }

        private void pause() throws IOException {
            if (!pacing) {
                return;
            }
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            next = Math.max(next, System.nanoTime()) + gapNanos;
        }
    }
}
