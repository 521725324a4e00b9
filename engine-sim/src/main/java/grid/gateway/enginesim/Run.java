package grid.gateway.enginesim;

import java.time.Duration;
import java.util.List;

/**
 * One request running in a slot of the simulated engine, after its prefill: the usage numbers and the output
 * pieces (one per simulated token). The caller paces the decode through {@link #nextToken()} (a stream) or
 * {@link #decodeAll()} (a whole answer) and closes the run to give the slot back. As in vLLM, the step that prefills
 * the prompt yields the first token, so a decode step comes before each later token only: {@code n} tokens take
 * {@code n − 1} steps, the decode time the simulator reports ({@link SimulatedEngine}).
 *
 * <p>Not thread-safe; one per request.
 */
final class Run implements AutoCloseable {
    private final Runnable release;
    private final Usage usage;
    private final List<String> pieces;
    private final boolean truncated;
    private final Pacer pacer;
    private final Duration perToken;
    private int yielded;

    /** A run whose {@code release} gives its slot and its cache blocks back (once). */
    Run(Runnable release, Usage usage, List<String> pieces, boolean truncated, Timing timing) {
        this.release = release;
        this.usage = usage;
        this.pieces = List.copyOf(pieces);
        this.truncated = truncated;
        this.pacer = timing.pacer();
        this.perToken = timing.perToken();
    }

    /** The pacer and the decode time per output token. */
    record Timing(Pacer pacer, Duration perToken) {}

    /** Prompt, cached and output tokens. */
    Usage usage() {
        return usage;
    }

    /** The output, one piece per token; pieces after the first start with a space. */
    List<String> pieces() {
        return pieces;
    }

    /** The whole output text. */
    String text() {
        return String.join("", pieces);
    }

    /** Whether the output stopped at the request's limit rather than at its natural end. */
    boolean truncated() {
        return truncated;
    }

    /** Waits for the next output token: the first comes with the prefill, each later one a decode step after it. */
    void nextToken() throws InterruptedException {
        if (yielded++ > 0) {
            pacer.pause(perToken);
        }
    }

    /** Waits for every output token not yet yielded (the decode steps after the first token). */
    void decodeAll() throws InterruptedException {
        int steps = pieces.size() - Math.max(1, yielded);
        yielded = pieces.size();
        if (steps > 0) {
            pacer.pause(perToken.multipliedBy(steps));
        }
    }

    @Override
    public void close() {
        release.run();
    }
}
