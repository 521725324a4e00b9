package grid.gateway.app.access;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;

/**
 * Test fixture: an output whose writes wait until it is {@link #opened}, as a pipe nobody reads does; {@link #entered}
 * counts down at the first write. What was written once opened is kept.
 */
public final class StalledOutput extends OutputStream {
    /** Counted down when a write first waits. */
    public final CountDownLatch entered = new CountDownLatch(1);
    /** Count it down to let every write through. */
    public final CountDownLatch opened = new CountDownLatch(1);

    private final ByteArrayOutputStream written = new ByteArrayOutputStream();

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
        entered.countDown();
        try {
            opened.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        synchronized (written) {
            written.write(bytes, offset, length);
        }
    }

    /** What was written, UTF-8. */
    public String text() {
        synchronized (written) {
            return written.toString(StandardCharsets.UTF_8);
        }
    }
}
