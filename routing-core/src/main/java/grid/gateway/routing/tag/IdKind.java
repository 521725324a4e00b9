package grid.gateway.routing.tag;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;

/**
 * Which stored object an id names (docs/design.md §5): a response ({@code resp_}) or a conversation ({@code conv_}).
 *
 * <p>Stateless and thread-safe. The prefix is the same on the engine's id and on its tag.
 */
public enum IdKind {
    /** A stored response: {@code resp_…}. */
    RESP("resp_"),
    /** A conversation: {@code conv_…}. */
    CONV("conv_");

    private static final IdKind[] KINDS = values();

    private final String prefix;
    private final byte[] prefixBytes;

    IdKind(String prefix) {
        this.prefix = prefix;
        this.prefixBytes = prefix.getBytes(StandardCharsets.US_ASCII);
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

    /**
     * Whether the bytes {@code text[from, to)} start with either kind's prefix: the test an id written raw in a JSON
     * answer passes before it is tagged.
     */
    public static boolean hasPrefix(byte[] text, int from, int to) {
        requireNonNull(text, "text");
        for (IdKind kind : KINDS) {
            byte[] prefix = kind.prefixBytes;
            if (to - from >= prefix.length
                    && Arrays.equals(text, from, from + prefix.length, prefix, 0, prefix.length)) {
                return true;
            }
        }
        return false;
    }
}
