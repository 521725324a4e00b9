package grid.gateway.app.http;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The process-wide budget of request body bytes held in memory at once ({@code server.max_inflight_body_bytes}), and
 * of the answer bytes relays hold (docs/design.md §H20), counted in the same budget.
 *
 * <p>A body reserves each buffer before it allocates it, and its request gives it back once the engine's answer
 * begins (the body is never sent again then), or when it ends (answered, refused or failed) if that comes first; the
 * answer's bytes are given back when the request ends. A reservation that would take the bytes in use past the limit is refused, and the
 * request answers 503 with {@code Retry-After}: a burst of large uploads then sheds load instead of exhausting the
 * heap. The limit is read on every reservation, so a reload applies at once.
 *
 * <p>Thread-safe: one atomic counter.
 */
public final class BodyBudget {
    private final LongSupplier limit;
    private final AtomicLong inUse = new AtomicLong();
    private final AtomicLong answers = new AtomicLong();

    /** A budget of {@code limit} bytes, read on every reservation. */
    public BodyBudget(LongSupplier limit) {
        this.limit = limit;
    }

    /** Whether {@code bytes} more could be held; when true they are held until {@link #release}d. */
    public boolean tryReserve(long bytes) {
        long max = limit.getAsLong();
        while (true) {
            long now = inUse.get();
            if (now + bytes > max) {
                return false;
            }
            if (inUse.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    /** Gives back {@code bytes} reserved before. */
    public void release(long bytes) {
        inUse.addAndGet(-bytes);
    }

    /** Bytes reserved now, bodies and answers. */
    public long inUse() {
        return inUse.get();
    }

    /** Request body bytes reserved now. */
    public long bodies() {
        return inUse.get() - answers.get();
    }

    /** Answer bytes relays hold now. */
    public long answers() {
        return answers.get();
    }

    /** Counts {@code bytes} of an answer, never refused: they take room from the bodies that come after. */
    private void holdAnswer(long bytes) {
        answers.addAndGet(bytes);
        inUse.addAndGet(bytes);
    }

    private void releaseAnswer(long bytes) {
        inUse.addAndGet(-bytes);
        answers.addAndGet(-bytes);
    }

    /**
     * What one request holds: every reservation it made, given back at once when the request ends.
     *
     * <p>Thread-safe: the body reader reserves while the request's thread may already have given up on it (a body
     * deadline); once closed, a hold reserves nothing more.
     */
    public static final class Hold implements AutoCloseable {
        private final BodyBudget budget;
        private long held;
        private long heldForAnswer;
        private boolean closed;
        private boolean bodyDone;

        Hold(BodyBudget budget) {
            this.budget = budget;
        }

        /** Whether {@code bytes} more could be reserved for this request. */
        synchronized boolean reserve(long bytes) {
            if (closed || bodyDone || !budget.tryReserve(bytes)) {
                return false;
            }
            held += bytes;
            return true;
        }

        /** Bytes this request holds. */
        synchronized long held() {
            return held;
        }

        /**
         * Counts {@code bytes} more of this request's answer (never refused), or gives back {@code -bytes} of them when
         * negative (a buffer the relay let go of); nothing once the request ended.
         */
        public synchronized void holdAnswer(long bytes) {
            if (!closed) {
                budget.holdAnswer(bytes);
                heldForAnswer += bytes;
            }
        }

        /**
         * The request's body will not be sent again (its answer began): its bytes are given back now, while the answer
         * may still take minutes to reach its client; the answer's own bytes stay held until {@link #close()}. Once
         * given back, the body reserves nothing more.
         */
        public synchronized void bodyDone() {
            bodyDone = true;
            budget.release(held);
            held = 0;
        }

        @Override
        public synchronized void close() {
            closed = true;
            budget.release(held);
            budget.releaseAnswer(heldForAnswer);
            held = 0;
            heldForAnswer = 0;
        }
    }

    /** A new, empty hold for one request. */
    public Hold hold() {
        return new Hold(this);
    }
}
