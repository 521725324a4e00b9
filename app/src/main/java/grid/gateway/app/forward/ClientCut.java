package grid.gateway.app.forward;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Ends a relay whose client stopped reading (docs/design.md §H19): interrupts the relay's thread, which closes the
 * client socket its write is blocked on (a blocking socket operation of a virtual thread closes its socket when the
 * thread is interrupted, plain or TLS alike; closing a TLS socket from another thread would wait for the blocked
 * writer's lock). The relay then closes the upstream connection and the request ends.
 *
 * <p>The interrupt can never reach the thread after the relay let go of it: {@link #fire()} and {@link #finish()}
 * take the same lock, and {@link #finish()} clears an interrupt that came before it.
 *
 * <p>Thread-safe: fired from the scheduler, finished by the relay's thread.
 */
final class ClientCut {
    private final Thread relay;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean done;
    private volatile boolean fired;

    /** A cut of the relay running on {@code relay}. */
    ClientCut(Thread relay) {
        this.relay = relay;
    }

    /** The send timeout passed during a write: ends that write unless the relay already finished. */
    void fire() {
        lock.lock();
        try {
            if (!done) {
                fired = true;
                relay.interrupt();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether the client was cut. */
    boolean fired() {
        return fired;
    }

    /** The relay is done with its thread: no cut from now on, and the interrupt of one that came is cleared. */
    void finish() {
        lock.lock();
        try {
            done = true;
        } finally {
            lock.unlock();
        }
        if (fired) {
            Thread.interrupted();
        }
    }
}
