package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import java.util.Map;
import java.util.Optional;

/**
 * Every TLS setting of the config: the two listeners', the default for https clusters and each cluster's own.
 *
 * <p>Thread-safe (immutable).
 *
 * @param server {@code server.tls}; empty: the client listener serves plain HTTP
 * @param admin {@code server.admin_tls}; empty: the admin listener serves plain HTTP
 * @param upstreamDefault {@code gateway.upstream.tls}: for every https cluster without a {@code tls} block
 * @param clusters {@code sites[*].clusters[*].tls}, by cluster
 * @param allowInsecure {@code development.allow_insecure_tls}: whether {@code insecure_skip_verify} may be set
 */
public record TransportSecurity(
        Optional<ListenerTls> server,
        Optional<ListenerTls> admin,
        Optional<UpstreamTls> upstreamDefault,
        Map<ClusterId, UpstreamTls> clusters,
        boolean allowInsecure) {
    /** No TLS setting anywhere: plain listeners, the JDK's trust for https clusters. */
    public static final TransportSecurity NONE =
            new TransportSecurity(Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), false);

    public TransportSecurity {
        requireNonNull(server, "server");
        requireNonNull(admin, "admin");
        requireNonNull(upstreamDefault, "upstreamDefault");
        clusters = Map.copyOf(clusters);
    }

    /**
     * The TLS settings for {@code cluster}'s https URLs (its {@code url} and {@code metrics_url}): its own block,
     * else the default; empty when neither is set (the JDK's trust then applies). Plain http URLs ignore them.
     */
    public Optional<UpstreamTls> forCluster(BackendCluster cluster) {
        UpstreamTls own = clusters.get(cluster.id());
        return own != null ? Optional.of(own) : upstreamDefault;
    }
}
