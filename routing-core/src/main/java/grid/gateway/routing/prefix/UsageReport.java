package grid.gateway.routing.prefix;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.keyer.ApiDialect;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What one answer's usage said of its cached prompt tokens, as the engine wrote it: a count, or a usage without one.
 * An answer without any usage (a stream without {@code include_usage}) is no report at all.
 *
 * <p>Thread-safe (immutable).
 *
 * @param api the API the request was sent on (engines report per API: vLLM never reports a cache hit on
 *     {@code /v1/messages}, always on {@code /v1/responses}); empty for a path outside the four
 * @param cachedTokens the count reported ({@code usage.prompt_tokens_details.cached_tokens} and the like); empty when
 *     the usage carried none ({@code null}, or absent)
 */
public record UsageReport(Optional<ApiDialect> api, OptionalLong cachedTokens) {
    public UsageReport {
        requireNonNull(api, "api");
        requireNonNull(cachedTokens, "cachedTokens");
        if (cachedTokens.isPresent() && cachedTokens.getAsLong() < 0) {
            throw new IllegalArgumentException("cachedTokens: " + cachedTokens.getAsLong() + " (expected: >= 0)");
        }
    }

    /** A count of {@code tokens} reported on {@code api}. */
    public static UsageReport counted(ApiDialect api, long tokens) {
        return new UsageReport(Optional.of(api), OptionalLong.of(tokens));
    }

    /** A usage on {@code api} without a cached count. */
    public static UsageReport silent(ApiDialect api) {
        return new UsageReport(Optional.of(api), OptionalLong.empty());
    }
}
