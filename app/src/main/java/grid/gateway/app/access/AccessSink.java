package grid.gateway.app.access;

import java.io.OutputStream;
import java.io.PrintStream;

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

    /** Lines dropped because the output could not take them in time ({@code grid_access_log_dropped_total}). */
    default long dropped() {
        return 0;
    }

    /**
     * Waits until the lines written so far have reached the output, at most {@code timeoutMillis}: whether they
     * have. A sink that writes each line as it is given returns true at once.
     */
    default boolean flush(long timeoutMillis) {
        return true;
    }

    /** The process's stdout: one queue and one writer thread for the process, however many gateways it runs. */
    static AccessSink stdout() {
        return Stdout.SINK;
    }

    /**
     * Lines to {@code out} through a {@link LineQueue}: a request's thread copies its line into a bounded ring and
     * returns; one writer thread writes to {@code out}, so a stalled output drops lines (counted) instead of stopping
     * requests.
     */
    static AccessSink to(OutputStream out) {
        return new LineQueue(out, LineQueue.CAPACITY, "grid-access-log-writer");
    }

    /** {@link #to(OutputStream)} for a PrintStream, which reports failures by a flag instead of throwing. */
    static AccessSink to(PrintStream out) {
        return to((OutputStream) out);
    }

    /** Holds the stdout sink, made at its first use. */
    final class Stdout {
        static final AccessSink SINK = to(System.out);

        private Stdout() {}
    }
}
