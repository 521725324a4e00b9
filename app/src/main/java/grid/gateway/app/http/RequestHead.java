package grid.gateway.app.http;

import io.helidon.http.Header;
import io.helidon.webserver.http.ServerRequest;
import java.util.Optional;

/**
 * What the gateway refuses in a request's head before it looks at its path, beyond what Helidon checks:
 *
 * <ul>
 *   <li>a method not in its case-sensitive name ({@code post}, {@code Post}): RFC 9110 §9.1 makes methods
 *       case-sensitive, and Helidon upper-cases every method it parses, so the raw request line
 *       ({@link RequestLineKeeper}) is compared with the parsed method: 501, never folded and forwarded;
 *   <li>a header with an empty name, or a value with a byte outside visible US-ASCII and HTAB: obs-text (0x80–0xFF)
 *       or a control. Helidon accepts obs-text, and the forwarder would send such a byte as {@code ?}: refused
 *       (400 {@code invalid_header}) rather than altered. No header of the APIs the gateway serves carries them. A
 *       control byte is refused by Helidon's own header validation first ({@link ParseRefusal}); checked here too, so
 *       that none is ever forwarded whatever that validation does.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
final class RequestHead {
    private RequestHead() {}

    /** The first problem of {@code request}'s head, or empty. */
    static Optional<ApiError> problem(ServerRequest request) {
        Optional<String> raw = RequestLineKeeper.rawMethod();
        if (raw.isPresent() && !raw.get().equals(request.prologue().method().text())) {
            return Optional.of(ApiError.METHOD_NOT_IMPLEMENTED);
        }
        for (Header header : request.headers()) {
            if (header.name().isEmpty() || !visibleAscii(header)) {
                return Optional.of(ApiError.INVALID_HEADER);
            }
        }
        return Optional.empty();
    }

    private static boolean visibleAscii(Header header) {
        for (String value : header.allValues()) {
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c > '~' || (c < ' ' && c != '\t')) {
                    return false;
                }
            }
        }
        return true;
    }
}
