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
     * keep-alive timeout, or vLLM's reset after a 400), so the request was sent again on a new connection.
     */
    STALE_CONNECTION;

    private final String label = name().toLowerCase(Locale.ROOT);

    /** The metric label value: the constant's name in lower case. */
    public String label() {
        return label;
    }
}
