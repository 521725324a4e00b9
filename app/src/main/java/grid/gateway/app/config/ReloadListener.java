package grid.gateway.app.config;

import java.util.List;

/**
 * Hears the outcome of each config reload the {@link ConfigWatcher} attempts, so that metrics can count
 * config reloads by result (docs/design.md §10). Every method has a no-op default.
 *
 * <p>Implementations must be thread-safe: the watcher calls them from its polling thread, one call at a time.
 */
public interface ReloadListener {
    /** A listener that does nothing. */
    ReloadListener NONE = new ReloadListener() {};

    /** A listener that runs {@code applied} for each applied reload and {@code refused} for each refused one. */
    static ReloadListener of(Runnable applied, Runnable refused) {
        return new ReloadListener() {
            @Override
            public void applied() {
                applied.run();
            }

            @Override
            public void refused(List<String> problems) {
                refused.run();
            }
        };
    }

    /** A changed config (or tag key file) was valid and is in force. */
    default void applied() {}

    /**
     * A changed config (or tag key file) was refused, or could not be read; the config in force stays.
     *
     * @param problems each problem with its key path, never key material
     */
    default void refused(List<String> problems) {}
}
