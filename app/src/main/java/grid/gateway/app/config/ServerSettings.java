package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * The {@code server} block: listeners and request limits.
 *
 * <p>Thread-safe (immutable).
 *
 * @param port client listener port; 0 binds any free port; default 8080
 * @param adminPort admin listener port ({@code /metrics}, {@code /health/*}); 0 binds any free port; default 9090
 * @param maxBodyBytes largest request body accepted, in bytes; larger answers 413; default 33554432 (32 MiB)
 * @param shutdownGrace how long a stopping gateway lets requests in flight finish before it cuts them; default 30 s
 */
public record ServerSettings(int port, int adminPort, long maxBodyBytes, Duration shutdownGrace) {
    /** SPEC §7 defaults. */
    public static final int DEFAULT_PORT = 8080;
    /** SPEC §7 defaults. */
    public static final int DEFAULT_ADMIN_PORT = 9090;
    /** SPEC §7 defaults. */
    public static final long DEFAULT_MAX_BODY_BYTES = 32L * 1024 * 1024;
    /** Long enough for most answers in flight, and as long as Kubernetes waits before it kills a pod. */
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(30);

    /** Validates. */
    public ServerSettings {
        requireNonNull(shutdownGrace, "shutdownGrace");
    }

    /** The settings with the default shutdown grace. */
    public ServerSettings(int port, int adminPort, long maxBodyBytes) {
        this(port, adminPort, maxBodyBytes, DEFAULT_SHUTDOWN_GRACE);
    }
}
