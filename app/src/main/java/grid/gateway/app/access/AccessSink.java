package grid.gateway.app.access;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where access log lines go: stdout in production, a collector in tests (so that tests never capture the process's
 * stdout, which parallel tests would share).
 *
 * <p>Implementations must be thread-safe: every request's thread writes its own line.
 */
@FunctionalInterface
public interface AccessSink {
    /**
     * Writes one line: the first {@code length} bytes of {@code line}, UTF-8, ending with a newline. The array is the
     * caller's and reused for its next line, so it must not be kept after the call. Never throws: a line that cannot
     * be written is lost.
     */
    void write(byte[] line, int length);

    /** The process's stdout. */
    static AccessSink stdout() {
        return to(System.out);
    }

    /**
     * Each line written whole to {@code out} and flushed, under a lock, so lines of concurrent requests never
     * interleave (a ReentrantLock: a virtual thread waiting on it does not pin its carrier).
     */
    static AccessSink to(OutputStream out) {
        ReentrantLock lock = new ReentrantLock();
        return (line, length) -> {
            lock.lock();
            try {
                out.write(line, 0, length);
                out.flush();
            } catch (IOException lost) {
                // stdout closed or full: the request was served, and the access log must never fail it.
            } finally {
                lock.unlock();
            }
        };
    }

    /** {@link #to(OutputStream)} for a PrintStream, which reports failures by a flag instead of throwing. */
    static AccessSink to(PrintStream out) {
        return to((OutputStream) out);
    }
}
