package grid.gateway.app.http;

import java.util.concurrent.ArrayBlockingQueue;

/**
 * A bounded pool of {@value BoundedBody#FIRST_BUFFER}-byte buffers that a request body is first read into, before
 * it has shown how long it really is.
 *
 * <p>Thread-safe. Without it every body longer than the first buffer would allocate that buffer only to copy it
 * into the body's own array once it grew: 16 KiB of garbage per request on top of the body (a 32 KiB body would
 * cost 48 KiB).
 * A buffer is taken for the length of one read and given back before the body is returned; the body itself always
 * gets an array of its own, so nothing that leaves {@link BoundedBody} shares a pooled buffer. When the pool is
 * empty (more reads in flight than it keeps) a new buffer is allocated; a buffer given back to a full pool is left
 * to the collector, so the pool never keeps more than {@link #KEPT} buffers (1 MiB).
 */
final class ScratchBuffers {
    /** How many idle buffers are kept at most. */
    static final int KEPT = 64;

    /** The pool every body read uses. */
    static final ScratchBuffers SHARED = new ScratchBuffers(KEPT);

    private final ArrayBlockingQueue<byte[]> idle;

    ScratchBuffers(int kept) {
        this.idle = new ArrayBlockingQueue<>(kept);
    }

    /** An idle buffer, or a new one; its contents are whatever the last read left (only bytes read are used). */
    byte[] take() {
        byte[] buffer = idle.poll();
        return buffer != null ? buffer : new byte[BoundedBody.FIRST_BUFFER];
    }

    /** Gives {@code buffer} back; the caller must not touch it afterwards. */
    void give(byte[] buffer) {
        idle.offer(buffer);
    }

    /** Idle buffers now (for tests). */
    int idle() {
        return idle.size();
    }
}
