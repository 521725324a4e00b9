package grid.gateway.app.config;

import java.util.List;

/**
 * An invalid serving config: every problem found, each as {@code key.path: what (expected: what)}, in the style
 * {@code plugins.grid_site_route.prefix_affinity.ttl_secs: 0 (expected: > 0)}. Never carries key material.
 *
 * <p>Thread-safe (immutable).
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /** An exception listing {@code problems} (at least one). */
    public ConfigException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    /** Each problem with its key path. */
    public List<String> problems() {
        return problems;
    }
}
