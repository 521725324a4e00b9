package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.Role;
import grid.gateway.routing.grid.SiteName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The {@code gateway} block: who this replica is.
 *
 * <p>Thread-safe (immutable).
 *
 * @param site {@code site}: the local site; required
 * @param role {@code role}: {@code consumer} (default) or {@code provider}
 * @param allowedPaths {@code allowed_paths}: the exact paths a provider forwards; default the four create paths
 * @param tagKeyPath {@code tag_key_path}: the tag key file; absent means unsigned tags
 * @param configPollInterval {@code config_poll_ms}: how often the config and key files are re-read; default 1000 ms
 * @param accessLog {@code access_log}: {@code json} (default) writes one JSON line per request on stdout, {@code off}
 *     none
 */
public record GatewaySettings(
        SiteName site,
        Role role,
        List<String> allowedPaths,
        Optional<Path> tagKeyPath,
        Duration configPollInterval,
        AccessLogFormat accessLog) {

    /** docs/design.md §7 default for {@code allowed_paths}. */
    public static final List<String> DEFAULT_ALLOWED_PATHS =
            List.of("/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/responses");
    /** Default for {@code config_poll_ms}. */
    public static final Duration DEFAULT_CONFIG_POLL_INTERVAL = Duration.ofSeconds(1);

    public GatewaySettings {
        requireNonNull(site, "site");
        requireNonNull(role, "role");
        allowedPaths = List.copyOf(allowedPaths);
        requireNonNull(tagKeyPath, "tagKeyPath");
        requireNonNull(configPollInterval, "configPollInterval");
        requireNonNull(accessLog, "accessLog");
    }

    /** Settings with the default access log ({@code json}). */
    public GatewaySettings(
            SiteName site,
            Role role,
            List<String> allowedPaths,
            Optional<Path> tagKeyPath,
            Duration configPollInterval) {
        this(site, role, allowedPaths, tagKeyPath, configPollInterval, AccessLogFormat.JSON);
    }

    /** {@code gateway.access_log}: whether and how each client request is logged when it ends. */
    public enum AccessLogFormat {
        /** One JSON object per request, one line, on stdout. */
        JSON,
        /** No access log. */
        OFF;

        /** The word in the config. */
        public String word() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
