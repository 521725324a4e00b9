package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;

/**
 * What a request that names stored ids resolves to (docs/design.md §5). The reasons for "not found" stay distinct here, for
 * logs and tests, but every one of them must answer the same 404 outside, so a client learns nothing from which
 * check failed.
 *
 * <p>Thread-safe (immutable).
 */
public sealed interface PinResult {
    /** Why a tagged id names no cluster. */
    enum NotFoundReason {
        MALFORMED,
        UNTAGGED,
        BAD_MAC,
        /** A well-formed tag of the other kind than its place reads (a {@code conv_} tag as a response id). */
        WRONG_KIND,
        CLUSTER_GONE
    }

    /** Forward to {@code cluster} only, with the tags stripped. */
    record Pinned(BackendCluster cluster) implements PinResult {
        public Pinned {
            requireNonNull(cluster, "cluster");
        }
    }

    /** Answer 404 in the API's error shape. */
    record NotFound(NotFoundReason reason) implements PinResult {
        public NotFound {
            requireNonNull(reason, "reason");
        }
    }

    /** Answer 503 with {@code Retry-After: 5}: the cluster is in the grid but admits no new request. */
    record Unavailable(BackendCluster cluster) implements PinResult {
        public Unavailable {
            requireNonNull(cluster, "cluster");
        }
    }

    /** Answer 400: two tags in one request name different clusters. */
    record Conflict() implements PinResult {}
}
