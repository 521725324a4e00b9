package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.NamedId;
import java.util.List;

/**
 * The stored ids one request body names, in body order: every copy of a duplicated member, since an engine's parser
 * may read any of them.
 *
 * <p>Thread-safe (immutable). Invariant: the ranges are increasing and do not overlap.
 *
 * @param ids the ids found; empty when the body names none or is not a JSON object
 */
public record StoredIds(List<StoredId> ids) {
    private static final StoredIds NONE = new StoredIds(List.of());

    /** Copies {@code ids} and refuses ranges out of order. */
    public StoredIds {
        ids = List.copyOf(requireNonNull(ids, "ids"));
        for (int i = 1; i < ids.size(); i++) {
            if (ids.get(i).start() < ids.get(i - 1).end()) {
                throw new IllegalArgumentException(
                        "stored ids out of body order at " + ids.get(i).start());
            }
        }
    }

    /** No ids. */
    public static StoredIds none() {
        return NONE;
    }

    /** Whether the body names no stored id: the request is not pinned by its body. */
    public boolean isEmpty() {
        return ids.isEmpty();
    }

    /** The ids with the kind each field expects, in body order: what the router resolves to one cluster. */
    public List<NamedId> named() {
        return ids.stream()
                .map(id -> new NamedId(id.field().kind(), id.value()))
                .toList();
    }

    /** The ids' texts, in body order. */
    public List<String> values() {
        return ids.stream().map(StoredId::value).toList();
    }
}
