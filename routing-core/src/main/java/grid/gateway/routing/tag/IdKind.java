package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * Which stored object an id names (SPEC §5): a response ({@code resp_}) or a conversation ({@code conv_}).
 *
 * <p>Stateless and thread-safe. The prefix is the same on the engine's id and on its tag.
 */
public enum IdKind {
    /** A stored response: {@code resp_…}. */
    RESP("resp_"),
    /** A conversation: {@code conv_…}. */
    CONV("conv_");

    private final String prefix;

    IdKind(String prefix) {
        this.prefix = prefix;
    }

    /** The prefix ids of this kind start with, underscore included. */
    public String prefix() {
        return prefix;
    }

    /** The kind whose prefix {@code id} starts with, if any (case-sensitive, as the engine writes it). */
    public static Optional<IdKind> of(String id) {
        requireNonNull(id, "id");
        if (id.startsWith(RESP.prefix)) {
            return Optional.of(RESP);
        }
        if (id.startsWith(CONV.prefix)) {
            return Optional.of(CONV);
        }
        return Optional.empty();
    }
}
