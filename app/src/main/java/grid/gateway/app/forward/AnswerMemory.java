package grid.gateway.app.forward;

/**
 * Where a relay counts the memory it holds for one answer (docs/design.md §H20): its copy buffer, a tagged JSON answer
 * held to learn its length, an event buffered to be tagged and its tagged copy while it is written, an id value held
 * to be tagged, the body's tail kept for the usage parser; and the slice a {@link BodyWriter} copies the rest of the
 * request body into, which an early answer's relay can outlive the body by. Counted in the same budget as request bodies
 * ({@code server.max_inflight_body_bytes}, gauge {@code grid_inflight_answer_bytes}) and given back when the request
 * ends (or earlier, as a buffer is let go of); an answer is never refused for it (the engine's work is done), but
 * bodies that arrive while answers hold the budget are shed with 503.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface AnswerMemory {
    /** Counts nothing. */
    AnswerMemory NONE = bytes -> {};

    /** Counts {@code bytes} more held for the answer until its request ends. */
    void hold(long bytes);

    /** Gives back {@code bytes} that {@link #hold} counted and the answer no longer holds. */
    default void release(long bytes) {
        hold(-bytes);
    }
}
