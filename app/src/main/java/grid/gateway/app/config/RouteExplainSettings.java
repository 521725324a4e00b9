package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The {@code server.route_explain} block: whether the admin listener answers {@code POST /route/explain}, and who
 * may ask (docs/operations.md, "Why did it go there?"). The explainer tells, for a guessed prompt, how many of its
 * blocks each cluster holds: a prefix oracle for whoever can call it, so it is off unless enabled, and enabled only
 * with a bearer token.
 *
 * <p>Thread-safe (immutable). {@link #toString()} never shows a token.
 *
 * @param enabled {@code enabled}: default false (the path answers 404)
 * @param tokenFile {@code token_file}: the file of bearer tokens, one a non-empty line, each at least
 *     {@value ExplainTokens#MIN_TOKEN_CHARS} characters (any line is accepted, so tokens can be rotated); required
 *     when enabled; re-read when it changes, like the config
 * @param tokens the tokens read from {@code tokenFile} (none when disabled)
 */
public record RouteExplainSettings(boolean enabled, Optional<Path> tokenFile, ExplainTokens tokens) {
    /** Off, no token: the default. */
    public static final RouteExplainSettings DISABLED =
            new RouteExplainSettings(false, Optional.empty(), ExplainTokens.none());

    /** Validates: enabled needs a token file. */
    public RouteExplainSettings {
        requireNonNull(tokenFile, "tokenFile");
        requireNonNull(tokens, "tokens");
        if (enabled && tokenFile.isEmpty()) {
            throw new IllegalArgumentException("an enabled route explainer needs a token file");
        }
    }
}
