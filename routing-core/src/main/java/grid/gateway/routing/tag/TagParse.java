package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

/**
 * What {@link TagCodec#parse} found in an id (docs/design.md §5): a tag, a plain engine id, or neither.
 *
 * <p>Thread-safe (immutable). The handler answers 404 to both {@link Untagged} and {@link Malformed}; they differ
 * only so that logs and metrics can tell a client that skipped the gateway from one that sent garbage.
 */
public sealed interface TagParse {

    /**
     * A well-formed tag. Its mac is not yet verified: that is {@link TagKeyRing#verify(TaggedId)}'s job.
     *
     * @param id the tag taken apart
     */
    record Tagged(TaggedId id) implements TagParse {
        public Tagged {
            requireNonNull(id, "id");
        }
    }

    /** A plain engine id ({@code resp_abc}): a known prefix, a valid id body and no '.', so no tag. */
    record Untagged() implements TagParse {}

    /**
     * Anything else: a wrong or missing prefix, a bad site label, digest, mac or id, a stray '.', or more than 512
     * chars.
     */
    record Malformed() implements TagParse {}
}
