package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;

/**
 * The {@code gateway.upstream} block: how requests are forwarded to backend clusters. Defaults suit LLM traffic: a
 * connect failure is known fast, while prefill of a long prompt under load can take minutes before the first byte.
 *
 * <p>Thread-safe (immutable).
 *
 * @param connectTimeout {@code connect_timeout_ms}: default 2000 ms; a connect failure tries the next candidate
 * @param firstByteTimeout {@code first_byte_timeout_ms}: from request sent to response headers; default 600000 ms
 * @param idleTimeout {@code idle_timeout_ms}: longest silence between two chunks of an answer; default 300000 ms
 * @param maxConnectionsPerCluster {@code max_connections_per_cluster}: pooled connections kept per cluster; default 512
 * @param maxConnectionAge {@code max_connection_age_ms}: a connection opened this long ago is not pooled again; empty
 *     (the default): no age limit
 */
public record UpstreamSettings(
        Duration connectTimeout,
        Duration firstByteTimeout,
        Duration idleTimeout,
        int maxConnectionsPerCluster,
        Optional<Duration> maxConnectionAge) {

    /** The defaults. */
    public static UpstreamSettings defaults() {
        return new UpstreamSettings(
                Duration.ofSeconds(2), Duration.ofMinutes(10), Duration.ofMinutes(5), 512, Optional.empty());
    }

    public UpstreamSettings {
        requireNonNull(connectTimeout, "connectTimeout");
        requireNonNull(firstByteTimeout, "firstByteTimeout");
        requireNonNull(idleTimeout, "idleTimeout");
        requireNonNull(maxConnectionAge, "maxConnectionAge");
    }

    /**
     * The longest silence inside an answer: {@code idle_timeout_ms}, or {@code first_byte_timeout_ms} when that is
     * shorter (the effective value docs/configuration.md gives).
     */
    public Duration longestSilence() {
        return idleTimeout.compareTo(firstByteTimeout) <= 0 ? idleTimeout : firstByteTimeout;
    }
}
