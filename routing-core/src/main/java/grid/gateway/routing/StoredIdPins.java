package grid.gateway.routing;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.grid.Grid;
import grid.gateway.routing.tag.TagCodec;
import grid.gateway.routing.tag.TagKeyRing;
import grid.gateway.routing.tag.TagParse;
import grid.gateway.routing.tag.TaggedId;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Resolves the stored ids one request names to the single backend cluster that stored them (docs/design.md §5), before
 * admission: parse each tag, verify its mac, find its cluster in the grid, and refuse two different clusters.
 *
 * <p>Stateless and thread-safe.
 */
final class StoredIdPins {
    private StoredIdPins() {}

    /**
     * The cluster all of {@code ids} name, or why there is none: the first id no cluster stores answers for them all
     * (an unknown id is the one 404, whatever else the request names), else two clusters conflict. Each id is checked
     * against the kind its place expects: a tag of the other kind is not found. The answer depends on which ids a
     * request names, not on their order.
     */
    static PinResult resolve(List<NamedId> ids, Grid grid, TagKeyRing keyRing, TagCodec codec) {
        if (ids.isEmpty()) {
            throw new IllegalArgumentException("no stored id to pin to");
        }
        @Nullable BackendCluster cluster = null;
        boolean conflict = false;
        for (NamedId id : ids) {
            PinResult one = resolveOne(id, grid, keyRing, codec);
            if (!(one instanceof PinResult.Pinned pinned)) {
                return one;
            }
            conflict |= cluster != null && !cluster.id().equals(pinned.cluster().id());
            cluster = pinned.cluster();
        }
        // Not reached with null: ids is not empty, and every id either returned or set cluster.
        return conflict ? new PinResult.Conflict() : new PinResult.Pinned(requireNonNull(cluster, "cluster"));
    }

    private static PinResult resolveOne(NamedId id, Grid grid, TagKeyRing keyRing, TagCodec codec) {
        return switch (codec.parse(id.text())) {
            case TagParse.Malformed m -> new PinResult.NotFound(PinResult.NotFoundReason.MALFORMED);
            case TagParse.Untagged u -> new PinResult.NotFound(PinResult.NotFoundReason.UNTAGGED);
            // A conversation's tag where a response id is read, or the reverse, names nothing stored there.
            case TagParse.Tagged tagged
            when tagged.id().kind() != id.expected() -> new PinResult.NotFound(PinResult.NotFoundReason.WRONG_KIND);
            case TagParse.Tagged tagged -> resolveTagged(tagged.id(), grid, keyRing);
        };
    }

    private static PinResult resolveTagged(TaggedId id, Grid grid, TagKeyRing keyRing) {
        // The mac is checked before the grid is consulted, so a forged tag learns nothing about the grid.
        if (!keyRing.verify(id)) {
            return new PinResult.NotFound(PinResult.NotFoundReason.BAD_MAC);
        }
        return grid.clusterByTag(id.site(), id.clusterDigest())
                .<PinResult>map(PinResult.Pinned::new)
                .orElse(new PinResult.NotFound(PinResult.NotFoundReason.CLUSTER_GONE));
    }
}
