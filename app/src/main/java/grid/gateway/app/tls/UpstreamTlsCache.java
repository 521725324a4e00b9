package grid.gateway.app.tls;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.TransportSecurity;
import grid.gateway.app.config.UpstreamTls;
import grid.gateway.routing.grid.BackendCluster;
import io.helidon.common.tls.Tls;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The Helidon {@link Tls} of each https cluster, by the fingerprint of its TLS settings and files, so that a reload
 * that leaves them alone keeps the same {@link Tls} and with it the pooled connections (the WebClient's pool is keyed
 * by {@link Tls}); a rotated certificate or CA gets a new one, and new connections use it.
 *
 * <p>Thread-safe: {@link #update} builds every new {@link Tls} first and then swaps an immutable map, so a request
 * reads either the old map or the new one.
 */
public final class UpstreamTlsCache {
    private static final System.Logger LOG = System.getLogger("grid.gateway.tls");

    private volatile TransportSecurity security;
    private volatile Map<String, Tls> byFingerprint;

    /**
     * The TLS of {@code security}.
     *
     * @throws RuntimeException when Helidon cannot build one of them
     */
    public UpstreamTlsCache(TransportSecurity security) {
        this.security = requireNonNull(security, "security");
        this.byFingerprint = build(security, Map.of());
    }

    /**
     * Switches to the TLS of {@code next}, reusing the {@link Tls} of unchanged settings.
     *
     * @throws RuntimeException when Helidon cannot build one of them; nothing is switched then
     */
    public void update(TransportSecurity next) {
        Map<String, Tls> built = build(next, byFingerprint);
        byFingerprint = built;
        security = next;
    }

    /**
     * The TLS for {@code cluster}'s https URLs: its own {@code tls}, else {@code gateway.upstream.tls}; empty when
     * neither is set (the WebClient's default: the JDK's trust, hostname verification on).
     */
    public Optional<Tls> forCluster(BackendCluster cluster) {
        return security.forCluster(cluster)
                .map(tls -> byFingerprint.get(tls.material().fingerprint()));
    }

    private static Map<String, Tls> build(TransportSecurity security, Map<String, Tls> previous) {
        Map<String, Tls> built = new HashMap<>();
        security.upstreamDefault().ifPresent(tls -> add(tls, previous, built));
        security.clusters().values().forEach(tls -> add(tls, previous, built));
        return Map.copyOf(built);
    }

    private static void add(UpstreamTls tls, Map<String, Tls> previous, Map<String, Tls> built) {
        String fingerprint = tls.material().fingerprint();
        Tls same = previous.get(fingerprint);
        if (same == null && tls.insecureSkipVerify() && !built.containsKey(fingerprint)) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "insecure_skip_verify: certificates and names of https clusters using this tls block are not"
                            + " checked (development.allow_insecure_tls is set); never run so in production");
        }
        built.computeIfAbsent(fingerprint, f -> same != null ? same : TlsFactory.upstream(tls));
    }
}
