package grid.gateway.app.config;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.tag.ClusterDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the {@code sites} list: site names (DNS-1123 labels, docs/design.md §5) unique in the grid, and their clusters, whose
 * names and {@link ClusterDigest digests} are unique within their site, since a stored-id tag names a cluster by its
 * site and digest.
 *
 * <p>Stateless and thread-safe.
 */
final class SitesBlock {
    private static final String SITES = "a non-empty list of sites, each with a name and clusters";
    private static final String CLUSTERS = "a non-empty list of backend clusters";

    private SitesBlock() {}

    /**
     * The grid's sites and clusters, as far as they are valid.
     *
     * @param names every valid site name, in config order
     * @param clusters every valid cluster of a valid site, in config order
     * @param tls the {@code tls} blocks of those clusters that have one
     */
    record Sites(List<SiteName> names, List<BackendCluster> clusters, Map<ClusterId, UpstreamTls> tls) {
        Sites {
            names = List.copyOf(names);
            clusters = List.copyOf(clusters);
            tls = Map.copyOf(tls);
        }
    }

    /** The sites under {@code root}'s {@code sites} key; {@code tls} reads each cluster's {@code tls} block. */
    static Sites read(YamlBlock root, TlsBlock.Context tls) {
        Optional<List<?>> list = root.requiredList("sites", SITES);
        if (list.isPresent() && list.get().isEmpty()) {
            root.problems().add("sites", list.get(), SITES);
        }
        Map<SiteName, String> seen = new LinkedHashMap<>();
        List<BackendCluster> clusters = new ArrayList<>();
        Map<ClusterId, UpstreamTls> clusterTls = new HashMap<>();
        for (YamlBlock site : root.items("sites", list.orElse(List.of()))) {
            site.only("name", "clusters");
            Optional<SiteName> name = siteName(site, seen);
            Map<String, ClusterBlock.Parts> valid = readClusters(site, tls);
            name.ifPresent(n -> valid.forEach((cluster, parts) -> {
                ClusterId id = new ClusterId(n, cluster);
                clusters.add(parts.cluster(id));
                parts.tls().ifPresent(t -> clusterTls.put(id, t));
            }));
        }
        return new Sites(List.copyOf(seen.keySet()), clusters, clusterTls);
    }

    private static Optional<SiteName> siteName(YamlBlock site, Map<SiteName, String> seen) {
        Optional<SiteName> name;
        try {
            name = site.requiredString("name", "a DNS-1123 label").map(SiteName::new);
        } catch (IllegalArgumentException e) {
            site.problems().addLine(site.path("name") + ": " + e.getMessage());
            return Optional.empty();
        }
        if (name.isPresent()) {
            String first = seen.putIfAbsent(name.get(), site.path("name"));
            if (first != null) {
                site.problems()
                        .add(site.path("name"), name.get().value(), "a name no other site has; " + first + " has it");
                return Optional.empty();
            }
        }
        return name;
    }

    /** The site's valid clusters by name, in config order. */
    private static Map<String, ClusterBlock.Parts> readClusters(YamlBlock site, TlsBlock.Context tls) {
        Optional<List<?>> list = site.requiredList("clusters", CLUSTERS);
        if (list.isPresent() && list.get().isEmpty()) {
            site.problems().add(site.path("clusters"), list.get(), CLUSTERS);
        }
        Map<String, String> names = new HashMap<>();
        Map<String, String> digests = new HashMap<>();
        Map<String, ClusterBlock.Parts> valid = new LinkedHashMap<>();
        for (YamlBlock cluster : site.items("clusters", list.orElse(List.of()))) {
            cluster.only(
                    "name",
                    "url",
                    "models",
                    "metrics_url",
                    "metrics_urls",
                    "metrics_dns",
                    "max_queue_depth",
                    "max_running",
                    "draining",
                    "tls");
            Optional<String> clusterName = ClusterBlock.name(cluster).filter(n -> unique(cluster, n, names, digests));
            Optional<ClusterBlock.Parts> content = ClusterBlock.read(cluster, tls);
            if (clusterName.isPresent() && content.isPresent()) {
                valid.put(clusterName.get(), content.get());
            }
        }
        return valid;
    }

    private static boolean unique(
            YamlBlock cluster, String name, Map<String, String> names, Map<String, String> digests) {
        String path = cluster.path("name");
        String first = names.putIfAbsent(name, path);
        if (first != null) {
            cluster.problems().add(path, name, "a name no other cluster of this site has; " + first + " has it");
            return false;
        }
        String digest = ClusterDigest.of(name);
        String clash = digests.putIfAbsent(digest, path);
        if (clash != null) {
            cluster.problems()
                    .add(
                            path,
                            name,
                            "a name whose digest differs from " + clash + "'s (both are " + digest
                                    + ", and stored-id tags name a cluster by its digest)");
            return false;
        }
        return true;
    }
}
