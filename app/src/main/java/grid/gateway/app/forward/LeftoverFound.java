package grid.gateway.app.forward;

import java.util.Locale;

/**
 * Where bytes an engine wrote beyond the answers the gateway read on a connection were found, on a connection that is
 * then closed rather than pooled or reused: the {@code found} label of {@code grid_upstream_leftovers_total}
 * (docs/metrics.md). No request is sent again for them and no client sees them; they are counted so that an engine
 * that writes more than its framing says is seen before a leftover lands where it cannot be told from an answer.
 *
 * <p>Stateless and thread-safe. {@link #label()} is the metric label value (a documented contract).
 */
public enum LeftoverFound {
    /**
     * Read past the end of an answer read to its exact end, when it ended: a body longer than its
     * {@code Content-Length}, data after the last chunk, a {@code 204}'s body that came with its head.
     */
    ANSWER_END,
    /**
     * Arrived on a plain-TCP connection while it was idle in the pool, found before it was reused. Over TLS such bytes
     * are not counted: still encrypted there, they cannot be told from the engine's close_notify (its keep-alive
     * timeout) without reading them as the next answer.
     */
    IDLE;

    private final String label = name().toLowerCase(Locale.ROOT);

    /** The metric label value: the constant's name in lower case. */
    public String label() {
        return label;
    }
}
