package grid.gateway.app.access;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lines to a stream that never make the thread that writes one wait for the stream: the thread copies its line into
 * a ring of {@link #CAPACITY} bytes, allocated once, and one writer thread copies what the ring holds out and writes
 * it to the stream. A stream that stalls (a log shipper that stops reading the process's stdout or stderr, a full
 * pipe) stalls the writer only; the ring fills, and a line that does not fit whole is dropped and counted
 * ({@link #dropped()}: {@code grid_access_log_dropped_total} for the access log, {@code grid_log_dropped_total} for
 * the gateway's own log). Once the stream takes bytes again the ring empties and lines flow.
 *
 * <p>A line is copied in whole or not at all, in the order the requests' threads took the lock, so lines never
 * interleave and one request's line is never cut. The lock is held only for a copy into or out of the ring, never
 * across a write to the stream (a ReentrantLock: a virtual thread waiting on it does not pin its carrier). Nothing is
 * allocated per line. The writer is one daemon platform thread, started with the first line.
 *
 * <p>Thread-safe.
 */
public final class LineQueue implements AccessSink {
    /** Bytes of lines held for the writer: about 2,000 lines of 500 bytes, seconds of a busy gateway's lines. */
    public static final int CAPACITY = 1 << 20;
    /** The most bytes the writer takes from the ring for one write. */
    private static final int CHUNK = 64 * 1024;

    private final OutputStream out;
    private final String threadName;
    private final byte[] ring;
    private final byte[] chunk;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition filled = lock.newCondition();
    private final Condition emptied = lock.newCondition();
    private final LongAdder dropped = new LongAdder();
    private int head;
    private int size;
    private boolean writing;
    private boolean started;

    /** Lines to {@code out}, held in a ring of {@code capacity} bytes; the writer thread is named {@code threadName}. */
    public LineQueue(OutputStream out, int capacity, String threadName) {
        this.out = out;
        this.threadName = threadName;
        this.ring = new byte[capacity];
        this.chunk = new byte[Math.min(CHUNK, capacity)];
    }

    @Override
    public void write(byte[] line, int length) {
        lock.lock();
        try {
            if (length > ring.length - size) {
                dropped.increment();
                return;
            }
            int tail = (head + size) % ring.length;
            int first = Math.min(length, ring.length - tail);
            System.arraycopy(line, 0, ring, tail, first);
            System.arraycopy(line, first, ring, 0, length - first);
            size += length;
            if (!started) {
                started = true;
                Thread.ofPlatform().daemon().name(threadName).start(this::drain);
            }
            filled.signal();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long dropped() {
        return dropped.sum();
    }

    /**
     * Waits until every line taken so far is written to the stream, at most {@code timeoutMillis}; whether it was
     * (false: the stream is stalled, and the lines still held are lost when the process exits).
     */
    @Override
    public boolean flush(long timeoutMillis) {
        long left = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        lock.lock();
        try {
            while (size > 0 || writing) {
                if (left <= 0) {
                    return false;
                }
                left = emptied.awaitNanos(left);
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The first {@code length} bytes of the chunk cut after its last newline, so that what else writes to the same
     * stream (a PrintStream's println) lands between lines, never inside one; all of them when the chunk has no
     * newline (a line longer than the chunk, which goes out in pieces).
     */
    private int wholeLines(int length) {
        for (int at = length - 1; at >= 0; at--) {
            if (chunk[at] == '\n') {
                return at + 1;
            }
        }
        return length;
    }

    /** The writer thread: takes what the ring holds, writes it without the lock, for as long as the process runs. */
    private void drain() {
        while (true) {
            int length;
            lock.lock();
            try {
                writing = false;
                while (size == 0) {
                    emptied.signalAll();
                    filled.awaitUninterruptibly();
                }
                length = Math.min(size, chunk.length);
                int first = Math.min(length, ring.length - head);
                System.arraycopy(ring, head, chunk, 0, first);
                System.arraycopy(ring, 0, chunk, first, length - first);
                length = wholeLines(length);
                head = (head + length) % ring.length;
                size -= length;
                writing = true;
            } finally {
                lock.unlock();
            }
            try {
                out.write(chunk, 0, length);
                out.flush();
            } catch (IOException | RuntimeException lost) {
                // The stream closed: what was logged happened, and a log must never fail what it records.
            }
        }
    }
}
