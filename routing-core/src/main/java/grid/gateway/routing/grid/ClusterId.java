package grid.gateway.routing.grid;

import static java.util.Objects.requireNonNull;

/**
 * Names one backend cluster in the grid: its site and its name, which is unique within the site.
 *
 * <p>Thread-safe (immutable).
 *
 * @param site the cluster's site
 * @param name the cluster's name
 */
public record ClusterId(SiteName site, String name) {
    public ClusterId {
        requireNonNull(site, "site");
        requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("cluster name is empty");
        }
    }

    @Override
    public String toString() {
        return site + "/" + name;
    }
}
