package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Optional;

/**
 * The {@code tracing} block (docs/operations.md, "Tracing"): where spans are exported, under which service name, and
 * what share of new traces is sampled. Read at start only: a reload that changes it takes effect at the next start.
 *
 * <p>Thread-safe (immutable).
 *
 * @param otlpEndpoint {@code otlp_endpoint}: the OTLP/HTTP URL spans are posted to, {@code /v1/traces} already
 *     appended when the configured URL had no path; empty: no spans are exported (trace context is still passed on)
 * @param serviceName {@code service_name}: the {@code service.name} resource attribute of every span
 * @param sampleRatio {@code sample_ratio}: the share of new traces (no valid {@code traceparent}) that are
 *     recorded, above 0 and at most 1; a request with a {@code traceparent} follows its parent's sampled flag
 */
public record TracingSettings(Optional<URI> otlpEndpoint, String serviceName, double sampleRatio) {
    /** The default service name. */
    public static final String DEFAULT_SERVICE_NAME = "grid-gateway";
    /** The default share of new traces sampled: all. */
    public static final double DEFAULT_SAMPLE_RATIO = 1.0;

    public TracingSettings {
        requireNonNull(otlpEndpoint, "otlpEndpoint");
        requireNonNull(serviceName, "serviceName");
        if (!(sampleRatio > 0 && sampleRatio <= 1)) {
            throw new IllegalArgumentException("sampleRatio not in (0, 1]: " + sampleRatio);
        }
    }

    /** No export; trace context passed on only. */
    public static TracingSettings none() {
        return new TracingSettings(Optional.empty(), DEFAULT_SERVICE_NAME, DEFAULT_SAMPLE_RATIO);
    }

    /** Whether spans are exported. */
    public boolean exports() {
        return otlpEndpoint.isPresent();
    }
}
