package grid.gateway.app.config;

import grid.gateway.routing.grid.Role;
import grid.gateway.routing.grid.SiteName;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Reads the {@code gateway} block into {@link GatewaySettings} and its {@code upstream} block into
 * {@link UpstreamSettings}.
 *
 * <p>Stateless and thread-safe.
 */
final class GatewayBlock {
    private static final String ROLES = "consumer or provider";
    private static final String PATH = "an exact path starting with '/'";
    // A provider matches paths exactly after refusing encoded slashes and dot segments (docs/design.md §8), so an
    // allowed
    // path holding one of these could never match.
    private static final Pattern UNMATCHABLE = Pattern.compile("[?#\\s\\p{Cntrl}]|%2[fF]|%5[cC]|(^|/)\\.{1,2}(/|$)");

    private GatewayBlock() {}

    /** The settings in {@code gateway}, or empty when {@code site} is missing or invalid (a problem). */
    static Optional<GatewaySettings> read(YamlBlock gateway, Path configDirectory) {
        gateway.only("site", "role", "allowed_paths", "tag_key_path", "config_poll_ms", "upstream", "access_log");
        Optional<SiteName> site = site(gateway);
        Role role = role(gateway);
        List<String> allowedPaths = allowedPaths(gateway);
        Optional<Path> tagKeyPath = tagKeyPath(gateway, configDirectory);
        Duration poll = Duration.ofMillis(gateway.integer(
                "config_poll_ms", GatewaySettings.DEFAULT_CONFIG_POLL_INTERVAL.toMillis(), LongRange.millis()));
        GatewaySettings.AccessLogFormat accessLog = accessLog(gateway);
        return site.map(name -> new GatewaySettings(name, role, allowedPaths, tagKeyPath, poll, accessLog));
    }

    /** The settings in {@code gateway.upstream}, defaults filled in. */
    static UpstreamSettings upstream(YamlBlock gateway) {
        YamlBlock upstream = gateway.block("upstream");
        // tls is read by TlsBlock, which needs the config's folder and the watcher's file reader.
        upstream.only(
                "connect_timeout_ms",
                "first_byte_timeout_ms",
                "idle_timeout_ms",
                "max_connections_per_cluster",
                "max_connection_age_ms",
                "tls");
        UpstreamSettings defaults = UpstreamSettings.defaults();
        return new UpstreamSettings(
                millis(upstream, "connect_timeout_ms", defaults.connectTimeout()),
                millis(upstream, "first_byte_timeout_ms", defaults.firstByteTimeout()),
                millis(upstream, "idle_timeout_ms", defaults.idleTimeout()),
                (int) upstream.integer(
                        "max_connections_per_cluster",
                        defaults.maxConnectionsPerCluster(),
                        LongRange.atMost(Integer.MAX_VALUE, "")),
                optionalMillis(upstream, "max_connection_age_ms"));
    }

    private static Optional<Duration> optionalMillis(YamlBlock block, String key) {
        OptionalLong millis = block.optionalInteger(key, LongRange.millis());
        return millis.isPresent() ? Optional.of(Duration.ofMillis(millis.getAsLong())) : Optional.empty();
    }

    private static Duration millis(YamlBlock block, String key, Duration otherwise) {
        return Duration.ofMillis(block.integer(key, otherwise.toMillis(), LongRange.millis()));
    }

    private static Optional<SiteName> site(YamlBlock gateway) {
        Optional<String> name = gateway.requiredString("site", "the local site's name, one of sites[*].name");
        try {
            return name.map(SiteName::new);
        } catch (IllegalArgumentException e) {
            gateway.problems().addLine(gateway.path("site") + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    private static Role role(YamlBlock gateway) {
        Optional<String> role = gateway.string("role", ROLES);
        if (role.isEmpty()) {
            return Role.CONSUMER;
        }
        // Case-sensitive, as every other word of the config: "Provider" is refused, not guessed.
        for (Role candidate : Role.values()) {
            if (candidate.name().toLowerCase(Locale.ROOT).equals(role.get())) {
                return candidate;
            }
        }
        gateway.problems().add(gateway.path("role"), role.get(), ROLES);
        return Role.CONSUMER;
    }

    private static GatewaySettings.AccessLogFormat accessLog(YamlBlock gateway) {
        String expected = "json or off";
        Optional<String> word = gateway.string("access_log", expected);
        if (word.isEmpty()) {
            return GatewaySettings.AccessLogFormat.JSON;
        }
        for (GatewaySettings.AccessLogFormat format : GatewaySettings.AccessLogFormat.values()) {
            if (format.word().equals(word.get())) {
                return format;
            }
        }
        gateway.problems().add(gateway.path("access_log"), word.get(), expected);
        return GatewaySettings.AccessLogFormat.JSON;
    }

    private static List<String> allowedPaths(YamlBlock gateway) {
        String key = "allowed_paths";
        Optional<List<?>> items = gateway.list(key, "a list of exact paths, each starting with '/'");
        if (items.isEmpty()) {
            return GatewaySettings.DEFAULT_ALLOWED_PATHS;
        }
        if (items.get().isEmpty()) {
            gateway.problems().add(gateway.path(key), items.get(), "at least one path");
        }
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < items.get().size(); i++) {
            Object item = items.get().get(i);
            String at = gateway.path(key) + "[" + i + "]";
            if (!(item instanceof String path) || !path.startsWith("/")) {
                gateway.problems().add(at, item, PATH);
            } else if (UNMATCHABLE.matcher(path).find()) {
                gateway.problems()
                        .add(
                                at,
                                path,
                                PATH + ", without query, fragment, white space, dot segments or" + " encoded slashes");
            } else if (paths.contains(path)) {
                gateway.problems().add(at, path, "a path not already listed");
            } else {
                paths.add(path);
            }
        }
        return paths;
    }

    private static Optional<Path> tagKeyPath(YamlBlock gateway, Path configDirectory) {
        String expected = "the path of the tag key file";
        Optional<String> text = gateway.string("tag_key_path", expected);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            if (!text.get().isBlank()) {
                // Relative to the config file's directory, so a config and its key file can move together.
                return Optional.of(configDirectory.resolve(text.get()).normalize());
            }
        } catch (InvalidPathException e) {
            // Reported below.
        }
        gateway.problems().add(gateway.path("tag_key_path"), text.get(), expected);
        return Optional.empty();
    }
}
