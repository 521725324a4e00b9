package grid.gateway.enginesim;

import java.time.Duration;
import java.util.List;

/**
 * One request running in a slot of the simulated engine, after its prefill: the usage numbers and the output
 * pieces (one per simulated token). The caller paces the decode through {@link #decode(int)} and closes the run to
 * give the slot back.
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

    /** Spends the decode time of {@code tokens} output tokens. */
    void decode(int tokens) throws InterruptedException {
        pacer.pause(perToken.multipliedBy(tokens));
    }

    @Override
    public void close() {
        release.run();
    }
}
