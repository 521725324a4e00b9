package grid.gateway.enginesim;

import io.helidon.webserver.http.ServerRequest;
import java.util.LinkedHashSet;
import java.util.SequencedSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connections whose last answer was scripted as their last ({@link Fault.ResetAfterAnswer}): the answer went out
 * as a keep-alive answer, and the next request that arrives on the connection finds it reset before any byte of
 * answer. Waiting for that request, instead of closing right after the answer, is what makes the fault certain: a
 * pooled client notices a close only if it reads the socket before reusing it, a race vLLM's clients sometimes lose
 * and sometimes win; here the client has already chosen to reuse the connection when it finds it gone.
 *
 * <p>Connections are known by their listener's and their own socket ids. At most {@value #KEPT} are remembered (a
 * client may never reuse one); the oldest is forgotten first.
 *
 * <p>Thread-safe: one lock around the set, never held across I/O.
 */
final class ConnectionResets {
    static final int KEPT = 1024;

    private final ReentrantLock lock = new ReentrantLock();
    private final SequencedSet<String> doomed = new LinkedHashSet<>();
    private final AtomicInteger resets = new AtomicInteger();

    /** Marks the connection {@code request} came on: its next request will find it reset. */
    void doom(ServerRequest request) {
        lock.lock();
        try {
            doomed.add(key(request));
            while (doomed.size() > KEPT) {
                doomed.removeFirst();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@code request} came on a doomed connection; the mark is used up, and the reset counted. */
    boolean take(ServerRequest request) {
        boolean found;
        lock.lock();
        try {
            found = doomed.remove(key(request));
        } finally {
            lock.unlock();
        }
        if (found) {
            resets.incrementAndGet();
        }
        return found;
    }

    /** Requests that found their connection reset. */
    int count() {
        return resets.get();
    }

    private static String key(ServerRequest request) {
        return request.serverSocketId() + " " + request.socketId();
    }
}
