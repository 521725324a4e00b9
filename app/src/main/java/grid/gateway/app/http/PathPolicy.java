package grid.gateway.app.http;

import grid.gateway.routing.grid.Role;
import java.util.List;
import java.util.Locale;

/**
 * Which raw request paths a replica serves (SPEC §8).
 *
 * <p>Both roles first refuse paths that could mean something else after decoding or normalisation: an encoded
 * slash or backslash, a dot segment, an empty segment (double or trailing slash). A consumer then serves the four
 * APIs, {@code /v1/responses…}, {@code /v1/conversations…} and {@code GET /v1/models}; a provider serves only its
 * allowed paths, by exact string match, so a stored response held at another site cannot be fetched through it.
 *
 * <p>Thread-safe (immutable).
 */
public final class PathPolicy {
    private static final List<String> CONSUMER_EXACT = List.of(
            "/v1/chat/completions",
            "/v1/completions",
            "/v1/messages",
            "/v1/messages/count_tokens",
            "/v1/responses",
            "/v1/conversations",
            "/v1/models");
    private static final List<String> CONSUMER_PREFIXES = List.of("/v1/responses/", "/v1/conversations/");

    private final Role role;
    private final List<String> allowedPaths;

    /** A policy for {@code role}; {@code allowedPaths} matter for a provider only. */
    public PathPolicy(Role role, List<String> allowedPaths) {
        this.role = role;
        this.allowedPaths = List.copyOf(allowedPaths);
    }

    /** Whether {@code rawPath} (as received, before any decoding) is served. */
    public boolean serves(String rawPath) {
        if (!isPlain(rawPath)) {
            return false;
        }
        if (role == Role.PROVIDER) {
            return allowedPaths.contains(rawPath);
        }
        return CONSUMER_EXACT.contains(rawPath) || CONSUMER_PREFIXES.stream().anyMatch(rawPath::startsWith);
    }

    /** No encoded slash or backslash, no dot segment, no empty segment. */
    static boolean isPlain(String rawPath) {
        if (!rawPath.startsWith("/") || rawPath.length() == 1) {
            return false;
        }
        String lower = rawPath.toLowerCase(Locale.ROOT);
        if (lower.contains("%2f") || lower.contains("%5c") || lower.contains("%2e") || rawPath.contains("\\")) {
            return false;
        }
        for (String segment : rawPath.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return false;
            }
        }
        return true;
    }
}
