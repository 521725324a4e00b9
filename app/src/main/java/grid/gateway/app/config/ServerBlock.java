package grid.gateway.app.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads the {@code server} block into {@link ServerSettings}.
 *
 * <p>Stateless and thread-safe.
 */
final class ServerBlock {
    /** The largest body a Java byte array holds: the body is kept whole until it is forwarded (docs/design.md §4). */
    static final long MAX_BODY_LIMIT = Integer.MAX_VALUE - 8;
    /**
     * Grace: 0 cuts requests in flight at once. Delay: 0 closes the listener at once. An hour is longer than any
     * orchestrator waits.
     */
    private static final LongRange SHUTDOWN_MILLIS = new LongRange(0, 3_600_000, "0..3600000", "0..3600000");

    /** 0 is half the heap; otherwise any count of bytes. */
    private static final LongRange INFLIGHT_BYTES =
            new LongRange(0, Long.MAX_VALUE, "0 (half the heap) or more", "at most " + Long.MAX_VALUE);
    /** 0 is no limit ({@code auto} is read apart). */
    private static final LongRange CONNECTIONS =
            new LongRange(0, Integer.MAX_VALUE, "0 (no limit) or more", "at most " + Integer.MAX_VALUE);
    /** An IPv4 or IPv6 literal or a DNS name: letters, digits, dots, hyphens, colons. */
    private static final Pattern HOST = Pattern.compile("[A-Za-z0-9.:-]{1,253}");

    private ServerBlock() {}

    /**
     * The settings in {@code server}, defaults filled in; a relative {@code route_explain.token_file} is resolved
     * against {@code directory} and read through {@code keys} (so that the watcher re-reads it).
     */
    static ServerSettings read(YamlBlock server, Path directory, KeyFileReader keys) {
        server.only(
                "port",
                "admin_port",
                "host",
                "admin_host",
                "max_body_bytes",
                "max_inflight_body_bytes",
                "max_connections",
                "header_timeout_ms",
                "body_timeout_ms",
                "send_timeout_ms",
                "shutdown_grace_ms",
                "shutdown_delay_ms",
                "route_explain",
                // Read by TlsBlock, which needs the config's folder and the watcher's file reader.
                "tls",
                "admin_tls");
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
        Duration sendTimeout = Duration.ofMillis(
                server.integer("send_timeout_ms", ServerSettings.DEFAULT_SEND_TIMEOUT.toMillis(), LongRange.millis()));
        long graceMillis =
                server.integer("shutdown_grace_ms", ServerSettings.DEFAULT_SHUTDOWN_GRACE.toMillis(), SHUTDOWN_MILLIS);
        long delayMillis =
                server.integer("shutdown_delay_ms", ServerSettings.DEFAULT_SHUTDOWN_DELAY.toMillis(), SHUTDOWN_MILLIS);
        // Only when both ports were read as written: a refused one stands at its default.
        if (server.problems().size() == before && port != 0 && port == adminPort) {
            server.problems().add(server.path("admin_port"), adminPort, "a port other than server.port, or 0");
        }
        long inflight = inflight(server, maxBodyBytes);
        return new ServerSettings(
                port,
                adminPort,
                maxBodyBytes,
                headerTimeout,
                bodyTimeout,
                sendTimeout,
                Duration.ofMillis(graceMillis),
                Duration.ofMillis(delayMillis),
                inflight,
                binding(server),
                routeExplain(server.block("route_explain"), directory, keys));
    }

    /** {@code max_inflight_body_bytes}: 0, or at least one largest body. */
    private static long inflight(YamlBlock server, long maxBodyBytes) {
        long inflight = server.integer("max_inflight_body_bytes", 0, INFLIGHT_BYTES);
        if (inflight != 0 && inflight < maxBodyBytes) {
            // A budget below one largest body would refuse every such body, whatever the load.
            server.problems()
                    .add(
                            server.path("max_inflight_body_bytes"),
                            inflight,
                            "0 (half the heap) or at least max_body_bytes");
            return 0;
        }
        return inflight;
    }

    /** The listeners' addresses and the client connection cap. */
    private static ServerSettings.Binding binding(YamlBlock server) {
        return new ServerSettings.Binding(
                host(server, "host", ServerSettings.DEFAULT_HOST),
                host(server, "admin_host", ServerSettings.DEFAULT_ADMIN_HOST),
                (int) server.integerOrAuto("max_connections", ServerSettings.Binding.AUTO, CONNECTIONS));
    }

    /** The {@code route_explain} block: off by default; on, it needs a token file, which is read now. */
    private static RouteExplainSettings routeExplain(YamlBlock block, Path directory, KeyFileReader keys) {
        block.only("enabled", "token_file");
        boolean enabled = block.bool("enabled", false);
        String expected = "the path of the file holding the bearer token";
        Optional<String> text = block.string("token_file", expected);
        Optional<Path> file = resolve(text, directory);
        if (text.isPresent() && file.isEmpty()) {
            block.problems().add(block.path("token_file"), text.get(), expected);
            return RouteExplainSettings.DISABLED;
        }
        if (!enabled) {
            return new RouteExplainSettings(false, file, ExplainTokens.none());
        }
        if (file.isEmpty()) {
            block.problems().missing(block.path("token_file"), expected + " (required when enabled)");
            return RouteExplainSettings.DISABLED;
        }
        return ExplainTokenFile.read(file.get(), keys, block.problems())
                .map(tokens -> new RouteExplainSettings(true, file, tokens))
                .orElse(RouteExplainSettings.DISABLED);
    }

    /** {@code text} as a path relative to {@code directory}; empty when blank or not a path. */
    private static Optional<Path> resolve(Optional<String> text, Path directory) {
        try {
            return text.filter(t -> !t.isBlank()).map(t -> directory.resolve(t).normalize());
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    /** A listener address: an IP literal or a host name, as written, or {@code otherwise}. */
    private static String host(YamlBlock server, String key, String otherwise) {
        String expected = "an IP address or host name";
        Optional<String> written = server.string(key, expected);
        if (written.isPresent() && !HOST.matcher(written.get()).matches()) {
            server.problems().add(server.path(key), written.get(), expected);
            return otherwise;
        }
        return written.orElse(otherwise);
    }
}
