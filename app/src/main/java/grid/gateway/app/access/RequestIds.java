package grid.gateway.app.access;

import grid.gateway.app.endpoint.RedactedPath;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a request id may be, and where new ones come from.
 *
 * <p>A client's id is kept when it is 1 to {@value #MAX_LENGTH} characters, each a letter, a digit or one of
 * {@code - _ . : + / = @}: UUIDs, ULIDs, base64 and {@code req_…} ids pass, and nothing that could split a header,
 * break out of a JSON string or a log line does, nor anything holding {@code resp_} or {@code conv_} (a stored id,
 * which the access log never holds: {@link RedactedPath}). Anything else is replaced, not refused: an id is for correlating,
 * and a client's tracing bug should not fail its requests.
 *
 * <p>Stateless and thread-safe.
 */
public final class RequestIds {
    /** The header the id arrives in, goes to the engine in, and comes back in. */
    public static final HeaderName HEADER = HeaderNames.create("X-Request-Id");
    /** The longest id kept. */
    public static final int MAX_LENGTH = 128;

    private RequestIds() {}

    /** Whether a client's id is kept as it is. */
    public static boolean wellFormed(@Nullable String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
            return false;
        }
        for (int i = 0; i < id.length(); i++) {
            if (!allowed(id.charAt(i))) {
                return false;
            }
        }
        // The id is logged, returned and sent to the engine: never one that may be a stored id (a capability).
        return !RedactedPath.holdsId(id);
    }

    private static boolean allowed(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '_'
                || c == '.'
                || c == ':'
                || c == '+'
                || c == '/'
                || c == '='
                || c == '@';
    }

    /** The id a request is known by: the client's when well-formed, else a new one. */
    static String choose(@Nullable String fromClient, Supplier<String> fresh) {
        return fromClient != null && wellFormed(fromClient) ? fromClient : fresh.get();
    }

    /**
     * Random version-4 UUIDs from the thread's random source: {@link UUID#randomUUID()} draws from SecureRandom, which
     * a correlation id does not need and which may block on a starved entropy pool.
     */
    public static Supplier<String> randomUuids() {
        return () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long high = (random.nextLong() & ~0xF000L) | 0x4000L;
            long low = (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            return new UUID(high, low).toString();
        };
    }
}
