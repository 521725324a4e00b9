package grid.gateway.app.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The keys the gateway reads only at start (docs/configuration.md marks each "read at start"): the listeners' ports,
 * addresses and connection cap, the header timeout and the shutdown timings, and the {@code gateway.upstream},
 * {@code sharing} and {@code tracing} blocks. A reload that changes one applies everything else, and the operator
 * must be told which values stay as they were, or the file on disk and the gateway disagree without a word.
 *
 * <p>Thread-safe (stateless).
 */
final class StartOnlyKeys {
    private StartOnlyKeys() {}

    /** The keys read at start whose value in {@code next} differs from {@code atStart}'s, in the reference's order. */
    static List<String> changed(GatewayConfig atStart, GatewayConfig next) {
        List<String> keys = new ArrayList<>();
        ServerSettings was = atStart.server();
        ServerSettings now = next.server();
        note(keys, "server.port", was.port(), now.port());
        note(keys, "server.admin_port", was.adminPort(), now.adminPort());
        note(keys, "server.host", was.binding().host(), now.binding().host());
        note(keys, "server.admin_host", was.binding().adminHost(), now.binding().adminHost());
        note(
                keys,
                "server.max_connections",
                was.binding().maxConnections(),
                now.binding().maxConnections());
        note(keys, "server.header_timeout_ms", was.headerTimeout(), now.headerTimeout());
        note(keys, "server.shutdown_grace_ms", was.shutdownGrace(), now.shutdownGrace());
        note(keys, "server.shutdown_delay_ms", was.shutdownDelay(), now.shutdownDelay());
        note(keys, "gateway.upstream", atStart.upstream(), next.upstream());
        note(keys, "plugins.grid_site_route.prefix_affinity.sharing", atStart.sharing(), next.sharing());
        note(keys, "tracing", atStart.tracing(), next.tracing());
        return keys;
    }

    private static void note(List<String> keys, String key, Object was, Object now) {
        if (!Objects.equals(was, now)) {
            keys.add(key);
        }
    }
}
