package grid.gateway.app.config;

import java.net.URI;
import java.util.Optional;

/**
 * Reads the top-level {@code tracing} block into {@link TracingSettings}.
 *
 * <p>{@code otlp_endpoint} is checked like a cluster URL (http or https, a host, no user info, query or fragment). A
 * URL without a path is the collector's base URL, as {@code OTEL_EXPORTER_OTLP_ENDPOINT} is, and gets the traces
 * path {@code /v1/traces}; a URL with a path is used as written.
 *
 * <p>Stateless and thread-safe.
 */
final class TracingBlock {
    /** The OTLP/HTTP path of trace exports. */
    static final String TRACES_PATH = "/v1/traces";

    private TracingBlock() {}

    /** The settings in {@code root.tracing}, defaults filled in. */
    static TracingSettings read(YamlBlock root) {
        YamlBlock block = root.block("tracing");
        block.only("otlp_endpoint", "service_name", "sample_ratio");
        Optional<URI> endpoint = block.string("otlp_endpoint", HttpUrl.EXPECTED)
                .flatMap(text -> HttpUrl.parse(block.path("otlp_endpoint"), text, block.problems()))
                .map(TracingBlock::withTracesPath);
        String nameExpected = "a non-empty name without control characters";
        String name = block.string("service_name", nameExpected).orElse(TracingSettings.DEFAULT_SERVICE_NAME);
        if (name.isBlank() || name.chars().anyMatch(Character::isISOControl)) {
            block.problems().add(block.path("service_name"), name, nameExpected);
            name = TracingSettings.DEFAULT_SERVICE_NAME;
        }
        return new TracingSettings(endpoint, name, ratio(block));
    }

    /** {@code sample_ratio}: above 0 (no export at all is an absent {@code otlp_endpoint}) and at most 1. */
    private static double ratio(YamlBlock block) {
        double ratio = block.positiveNumber("sample_ratio", TracingSettings.DEFAULT_SAMPLE_RATIO);
        if (ratio > 1) {
            block.problems().add(block.path("sample_ratio"), ratio, "a number in 0..1, above 0");
            return TracingSettings.DEFAULT_SAMPLE_RATIO;
        }
        return ratio;
    }

    /** {@code url} with {@code /v1/traces} when it has no path (trailing slashes were already dropped). */
    private static URI withTracesPath(URI url) {
        String path = url.getRawPath();
        return path == null || path.isEmpty() ? URI.create(url + TRACES_PATH) : url;
    }
}
