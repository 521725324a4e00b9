package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.nio.file.Path;

/**
 * {@code --check-config FILE} (docs/design.md §12): validates a config file and prints its effective config with every default
 * filled in, or prints each problem with its key path.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigCheck {
    /** Exit code of a valid config. */
    public static final int VALID = 0;
    /** Exit code of an invalid config, the same a gateway started with one exits with. */
    public static final int INVALID = 2;

    private ConfigCheck() {}

    /**
     * Checks {@code file}: prints the effective config to {@code out} and returns {@value #VALID}, or prints each
     * problem on its own line to {@code err} and returns {@value #INVALID}.
     */
    public static int run(Path file, PrintStream out, PrintStream err) {
        requireNonNull(file, "file");
        requireNonNull(out, "out");
        requireNonNull(err, "err");
        GatewaySnapshot snapshot;
        try {
            snapshot = ConfigLoader.load(file);
        } catch (ConfigException e) {
            e.problems().forEach(err::println);
            err.flush();
            return INVALID;
        }
        out.print(EffectiveConfig.yaml(snapshot));
        out.flush();
        return VALID;
    }
}
