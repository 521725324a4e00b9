package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.prefix.PrefixAffinitySettings;

/**
 * The whole serving config, every default filled in (docs/design.md §7).
 *
 * <p>Thread-safe (immutable). A reload builds a new tree and swaps it whole.
 *
 * @param server {@code server.*}
 * @param gateway {@code gateway.*} except {@code gateway.upstream}
 * @param upstream {@code gateway.upstream.*}
 * @param grid {@code sites[*]} with {@code gateway.site} as the local site
 * @param load {@code plugins.grid_site_route.load.*}
 * @param prefixAffinity {@code plugins.grid_site_route.prefix_affinity.*}
 * @param sharing {@code plugins.grid_site_route.prefix_affinity.sharing.*}
 * @param tls every TLS block: {@code server.tls}, {@code server.admin_tls}, {@code gateway.upstream.tls},
 *     {@code sites[*].clusters[*].tls}, and {@code development.allow_insecure_tls}
 * @param tracing {@code tracing.*}
 */
public record GatewayConfig(
        ServerSettings server,
        GatewaySettings gateway,
        UpstreamSettings upstream,
        Grid grid,
        LoadSettings load,
        PrefixAffinitySettings prefixAffinity,
        SharingSettings sharing,
        TransportSecurity tls,
        TracingSettings tracing) {

    public GatewayConfig {
        requireNonNull(server, "server");
        requireNonNull(gateway, "gateway");
        requireNonNull(upstream, "upstream");
        requireNonNull(grid, "grid");
        requireNonNull(load, "load");
        requireNonNull(prefixAffinity, "prefixAffinity");
        requireNonNull(sharing, "sharing");
        requireNonNull(tls, "tls");
        requireNonNull(tracing, "tracing");
    }
}
