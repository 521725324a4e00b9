package grid.gateway.app.sharing;

import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A reply refused for its size ({@link ReplyBounds}): one value larger than its bound (a bulk string, an aggregate's
 * elements, its nesting), or the whole reply. It carries the reply's second bulk string when that was short and read
 * whole before the refusal: in an XREAD reply of one entry, the entry's id (the first is the stream's name), which
 * lets the reader step past an entry it can never read ({@link SharingReader}).
 *
 * <p>Immutable.
 */
final class OversizedReply extends ProtocolException {
    private static final long serialVersionUID = 1L;

    private final boolean whole;
    private final transient Optional<String> secondBulk;

    OversizedReply(String message, boolean whole, Optional<String> secondBulk) {
        super(message);
        this.whole = whole;
        this.secondBulk = secondBulk;
    }

    /** Whether the whole reply was too long, each of its values within its bound. */
    boolean whole() {
        return whole;
    }

    /** The reply's second bulk string, when short and read whole before the refusal. */
    Optional<String> secondBulk() {
        return secondBulk;
    }

    /** As every refusal is logged and shown ({@code java.net.ProtocolException: Redis reply refused: …}). */
    @Override
    public String toString() {
        return ProtocolException.class.getName() + ": " + getMessage();
    }

    /** {@code failure}'s cause that is a size refusal, if any. */
    static Optional<OversizedReply> in(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof OversizedReply oversized) {
                return Optional.of(oversized);
            }
        }
        return Optional.empty();
    }

    /** The text of {@code length} bytes of {@code bytes}: a stream id is ASCII. */
    static String text(byte[] bytes, int length) {
        return new String(bytes, 0, length, StandardCharsets.US_ASCII);
    }
}
