package grid.gateway.routing.select;

import java.util.Arrays;
import java.util.Optional;

/**
 * How candidates are ordered by load ({@code load.order_by}).
 *
 * <p>Thread-safe (immutable).
 */
public enum LoadOrder {
    /**
     * The seed's order: windowed worst queue depth (in seconds with measured queued-request costs), and the load gate
     * of {@link LoadGate}. The default.
     */
    DEPTH("depth"),
    /**
     * By the time to first token each candidate is expected to give this request ({@link ExpectedWait}): its queue in
     * seconds, plus the prefill this replica has sent it and it has not yet worked off, plus the request's own uncached
     * prefill at that cluster's rate. The sticky set reopens when another candidate is expected
     * to answer more than {@link ExpectedWait#LEAVE_FACTOR} times sooner (with every cluster costing the same, later
     * than the seed's gate, never earlier).
     */
    EXPECTED_WAIT("expected_wait");

    private final String label;

    LoadOrder(String label) {
        this.label = label;
    }

    /** Its value in YAML. */
    public String label() {
        return label;
    }

    /** The order named {@code label} in YAML, if any. */
    public static Optional<LoadOrder> find(String label) {
        return Arrays.stream(values()).filter(o -> o.label.equals(label)).findFirst();
    }

    /** The order named {@code label} in YAML; refuses any other word, naming the allowed ones. */
    public static LoadOrder of(String label) {
        return find(label)
                .orElseThrow(() ->
                        new IllegalArgumentException("order_by: " + label + " (expected: depth or expected_wait)"));
    }
}
