package grid.gateway.routing.grid;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.tag.ClusterDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every site and backend cluster this replica knows, and which of them is its local site: an immutable snapshot,
 * replaced whole when the serving config changes.
 *
 * <p>Thread-safe (immutable). Invariants: cluster names, and their digests, are unique within a site; the local
 * site is one of the sites.
 */
public final class Grid {
    private final SiteName localSite;
    private final List<BackendCluster> clusters;
    private final Map<ClusterId, BackendCluster> byId;
    private final Map<String, BackendCluster> byTag;
    /** The models two or more clusters serve, draining ones included: computed once, asked on every request. */
    private final Set<String> servedByMany;

    private Grid(SiteName localSite, List<BackendCluster> clusters) {
        this.localSite = localSite;
        this.clusters = List.copyOf(clusters);
        Map<ClusterId, BackendCluster> ids = new LinkedHashMap<>();
        Map<String, BackendCluster> tags = new HashMap<>();
        Set<String> seen = new HashSet<>();
        Set<String> many = new HashSet<>();
        for (BackendCluster cluster : clusters) {
            for (String model : cluster.models()) {
                if (!seen.add(model)) {
                    many.add(model);
                }
            }
            if (ids.putIfAbsent(cluster.id(), cluster) != null) {
                throw new IllegalArgumentException("cluster " + cluster.id() + " is listed twice");
            }
            String tag = tagKey(
                    cluster.id().site().value(), ClusterDigest.of(cluster.id().name()));
            BackendCluster clash = tags.putIfAbsent(tag, cluster);
            if (clash != null) {
                throw new IllegalArgumentException(
                        "clusters " + clash.id() + " and " + cluster.id() + " have the same digest; rename one");
            }
        }
        this.byId = Map.copyOf(ids);
        this.byTag = Map.copyOf(tags);
        this.servedByMany = Set.copyOf(many);
    }

    /** A grid of {@code clusters} whose replica belongs to {@code localSite}. */
    public static Grid of(SiteName localSite, List<BackendCluster> clusters) {
        requireNonNull(localSite, "localSite");
        Grid grid = new Grid(localSite, clusters);
        if (!grid.sites().contains(localSite) && !clusters.isEmpty()) {
            throw new IllegalArgumentException("local site " + localSite + " has no cluster in the grid");
        }
        return grid;
    }

    /** The replica's own site. */
    public SiteName localSite() {
        return localSite;
    }

    /** Every backend cluster, in config order. */
    public List<BackendCluster> clusters() {
        return clusters;
    }

    /** The sites that have clusters, in config order. */
    public Set<SiteName> sites() {
        Set<SiteName> sites = new LinkedHashSet<>();
        clusters.forEach(c -> sites.add(c.id().site()));
        return sites;
    }

    /** The cluster with this id. */
    public Optional<BackendCluster> cluster(ClusterId id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** The cluster a tag names by site and cluster digest. */
    public Optional<BackendCluster> clusterByTag(String site, String clusterDigest) {
        return Optional.ofNullable(byTag.get(tagKey(site, clusterDigest)));
    }

    /** The clusters that serve {@code model}, in config order. */
    public List<BackendCluster> serving(String model) {
        List<BackendCluster> serving = new ArrayList<>();
        for (BackendCluster cluster : clusters) {
            if (cluster.serves(model)) {
                serving.add(cluster);
            }
        }
        return serving;
    }

    /** Whether two or more clusters serve {@code model}, draining ones included. */
    public boolean servedByMany(String model) {
        return servedByMany.contains(model);
    }

    /** Every model some cluster serves. */
    public Set<String> models() {
        Set<String> models = new LinkedHashSet<>();
        clusters.forEach(c -> models.addAll(c.models()));
        return models;
    }

    private static String tagKey(String site, String digest) {
        return site + "." + digest;
    }

    @Override
    public String toString() {
        return "Grid[localSite=" + localSite + ", clusters=" + byId.keySet() + "]";
    }
}
