package grid.gateway.app.tls;

import static java.util.Objects.requireNonNull;

import grid.gateway.app.config.TransportSecurity;
import grid.gateway.app.config.UpstreamTls;
import grid.gateway.routing.grid.BackendCluster;
import io.helidon.common.tls.Tls;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The Helidon {@link Tls} of each https cluster, by the fingerprint of its TLS settings and files, so that a reload
 * that leaves them alone keeps the same {@link Tls} and with it the pooled connections (the upstream pool is keyed by
 * origin, its {@link Tls} included); a rotated certificate or CA gets a new one, and new connections use it.
 *
 * <p>A request is routed on the grid of one config, and its cluster's TLS is looked up here when it is sent: a reload
 * in between (the TLS is switched before the grid, and a request routed just before a reload is sent just after it)
 * would pair a cluster of the config before (its URL) with the TLS of the new one, a connection neither config opens,
 * whose handshake may fail as a connect failure of the cluster. So each switch remembers the clusters it was made
 * for and the one before, and a cluster that only the one before has (moved, changed, or removed) gets that one's
 * TLS: a request is sent with the TLS of the config it was routed on.
 *
 * <p>Thread-safe: {@link #update} builds every new {@link Tls} first and then swaps the settings and their TLS in one
 * volatile write, so a request reads either the old pair or the new one. Connections pooled for a replaced
 * {@link Tls} are not reused by new requests; the pool closes them once the reload is applied
 * ({@code UpstreamForwarder.retainOnly}).
 */
public final class UpstreamTlsCache {
    private static final System.Logger LOG = System.getLogger("grid.gateway.tls");

    /**
     * The settings in force and their TLS, swapped together so that a request never sees one without the other; the
     * clusters of the config they came with; the settings in force before (without theirs before), or null.
     */
    private record InForce(
            TransportSecurity security,
            Map<String, Tls> byFingerprint,
            Set<BackendCluster> clusters,
            @Nullable InForce before) {
        InForce alone() {
            return new InForce(security, byFingerprint, clusters, null);
        }
    }

    private volatile InForce inForce;

    /**
     * The TLS of {@code security}, the settings of the config whose clusters are {@code clusters}.
     *
     * @throws RuntimeException when Helidon cannot build one of them
     */
    public UpstreamTlsCache(TransportSecurity security, Collection<BackendCluster> clusters) {
        requireNonNull(security, "security");
        this.inForce = new InForce(security, build(security, Map.of()), Set.copyOf(clusters), null);
    }

    /**
     * Switches to the TLS of {@code next}, the settings of the config whose clusters are {@code clusters}, reusing the
     * {@link Tls} of unchanged settings.
     *
     * @return what switches back to the settings and {@link Tls} in force before (the same objects, so the
     *     connections pooled for them are reused again)
     * @throws RuntimeException when Helidon cannot build one of them; nothing is switched then
     */
    public Runnable update(TransportSecurity next, Collection<BackendCluster> clusters) {
        InForce before = inForce;
        inForce = new InForce(next, build(next, before.byFingerprint()), Set.copyOf(clusters), before.alone());
        return () -> inForce = before;
    }

    /**
     * The TLS for {@code cluster}'s https URLs: its own {@code tls}, else {@code gateway.upstream.tls}; empty when
     * neither is set (the JDK's trust, hostname verification on).
     */
    public Optional<Tls> forCluster(BackendCluster cluster) {
        InForce latest = inForce;
        InForce before = latest.before();
        // A cluster only the config before has was routed on it (a request, a scrape round begun before the reload).
        InForce now = before != null
                        && !latest.clusters().contains(cluster)
                        && before.clusters().contains(cluster)
                ? before
                : latest;
        return now.security()
                .forCluster(cluster)
                .map(tls -> now.byFingerprint().get(tls.material().fingerprint()));
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
