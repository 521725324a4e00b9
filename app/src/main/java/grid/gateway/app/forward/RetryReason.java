package grid.gateway.app.forward;

import java.util.Locale;

/**
 * Why a request was sent upstream a second time: the {@code reason} label of {@code grid_upstream_retries_total}.
 *
 * <p>Stateless and thread-safe. {@link #label()} is the metric label value (a documented contract).
 */
public enum RetryReason {
    /**
     * The reused connection it went out on failed before any byte of its answer: the engine had closed it (a
     * keep-alive timeout, or vLLM's reset after a 400), or answered 408 (its keep-alive timeout), so the request was
     * sent again on a new connection.
     */
    STALE_CONNECTION,
    /**
     * What came first on the reused connection it went out on was no answer to it: bytes an earlier exchange left
     * that cannot begin a status line, or an answer naming an earlier request. The engine wrote more than the answers
     * the gateway read on that connection (an answer longer than its framing said, so a client before this one may
     * have been given a shortened one, or an answer too many); the request was sent again on a new connection. Counted apart from
     * {@link #STALE_CONNECTION}, which a healthy engine's keep-alive timeout causes, so that an engine that breaks its
     * framing is seen.
     */
    OUT_OF_STEP;

    private final String label = name().toLowerCase(Locale.ROOT);

    /** The metric label value: the constant's name in lower case. */
    public String label() {
        return label;
    }
}
