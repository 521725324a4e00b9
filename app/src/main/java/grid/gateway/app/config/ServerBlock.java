package grid.gateway.app.config;

import java.time.Duration;

/**
 * Reads the {@code server} block into {@link ServerSettings}.
 *
 * <p>Stateless and thread-safe.
 */
final class ServerBlock {
    /** The largest body a Java byte array holds: the body is kept whole until it is forwarded (SPEC §4). */
    static final long MAX_BODY_LIMIT = Integer.MAX_VALUE - 8;
    /**
     * Grace: 0 cuts requests in flight at once. Delay: 0 closes the listener at once. An hour is longer than any
     * orchestrator waits.
     */
    private static final LongRange SHUTDOWN_MILLIS = new LongRange(0, 3_600_000, "0..3600000", "0..3600000");

    private ServerBlock() {}

    /** The settings in {@code server}, defaults filled in. */
    static ServerSettings read(YamlBlock server) {
        server.only(
                "port",
                "admin_port",
                "max_body_bytes",
                "header_timeout_ms",
                "body_timeout_ms",
                "shutdown_grace_ms",
                "shutdown_delay_ms");
        int before = server.problems().size();
        int port = (int) server.integer("port", ServerSettings.DEFAULT_PORT, LongRange.PORT);
        int adminPort = (int) server.integer("admin_port", ServerSettings.DEFAULT_ADMIN_PORT, LongRange.PORT);
        long maxBodyBytes = server.integer(
                "max_body_bytes",
                ServerSettings.DEFAULT_MAX_BODY_BYTES,
                LongRange.atMost(MAX_BODY_LIMIT, ", the largest body a byte array holds"));
        Duration headerTimeout = Duration.ofMillis(server.integer(
                "header_timeout_ms", ServerSettings.DEFAULT_HEADER_TIMEOUT.toMillis(), LongRange.millis()));
        Duration bodyTimeout = Duration.ofMillis(
                server.integer("body_timeout_ms", ServerSettings.DEFAULT_BODY_TIMEOUT.toMillis(), LongRange.millis()));
        long graceMillis =
                server.integer("shutdown_grace_ms", ServerSettings.DEFAULT_SHUTDOWN_GRACE.toMillis(), SHUTDOWN_MILLIS);
        long delayMillis =
                server.integer("shutdown_delay_ms", ServerSettings.DEFAULT_SHUTDOWN_DELAY.toMillis(), SHUTDOWN_MILLIS);
        // Only when both ports were read as written: a refused one stands at its default.
        if (server.problems().size() == before && port != 0 && port == adminPort) {
            server.problems().add(server.path("admin_port"), adminPort, "a port other than server.port, or 0");
        }
        return new ServerSettings(
                port,
                adminPort,
                maxBodyBytes,
                headerTimeout,
                bodyTimeout,
                Duration.ofMillis(graceMillis),
                Duration.ofMillis(delayMillis));
    }
}
