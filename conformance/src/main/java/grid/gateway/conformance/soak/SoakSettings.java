package grid.gateway.conformance.soak;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.time.Duration;

/**
 * What one soak run does.
 *
 * @param duration how long mixed traffic runs (after a warm-up of a tenth of it, at most 30 s)
 * @param clients concurrent clients
 * @param gatewayJar the packaged gateway, {@code app/target/grid-gateway.jar}
 * @param workDir where configs and the tag key are written
 * @param seed seeds every client's choices, so that a run can be repeated
 */
public record SoakSettings(Duration duration, int clients, Path gatewayJar, Path workDir, long seed) {
    /** Validates. */
    public SoakSettings {
        requireNonNull(duration, "duration");
        requireNonNull(gatewayJar, "gatewayJar");
        requireNonNull(workDir, "workDir");
        if (duration.isNegative() || duration.isZero() || clients < 1) {
            throw new IllegalArgumentException("duration and clients must be positive");
        }
    }

    /** The warm-up before the baseline is measured. */
    public Duration warmUp() {
        Duration tenth = duration.dividedBy(10);
        Duration cap = Duration.ofSeconds(30);
        return tenth.compareTo(cap) > 0 ? cap : tenth;
    }
}
