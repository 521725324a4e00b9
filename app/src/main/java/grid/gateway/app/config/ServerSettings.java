package grid.gateway.app.config;

/**
 * The {@code server} block: listeners and request limits.
 *
 * <p>Thread-safe (immutable).
 *
 * @param port client listener port; 0 binds any free port; default 8080
 * @param adminPort admin listener port ({@code /metrics}, {@code /health/*}); 0 binds any free port; default 9090
 * @param maxBodyBytes largest request body accepted, in bytes; larger answers 413; default 33554432 (32 MiB)
 */
public record ServerSettings(int port, int adminPort, long maxBodyBytes) {
    /** SPEC §7 defaults. */
    public static final int DEFAULT_PORT = 8080;
    /** SPEC §7 defaults. */
    public static final int DEFAULT_ADMIN_PORT = 9090;
    /** SPEC §7 defaults. */
    public static final long DEFAULT_MAX_BODY_BYTES = 32L * 1024 * 1024;
}
