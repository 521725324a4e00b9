package grid.gateway.app.forward;

import io.helidon.http.Header;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;

/**
 * Headers that belong to one connection and are never forwarded (RFC 9110 §7.6.1): the fixed list, plus every
 * header the message's own {@code Connection} header names. {@code HTTP2-Settings} is in the fixed list although
 * RFC 9113 would have {@code Connection} name it: it only ever accompanies an h2c upgrade of this one connection.
 *
 * <p>Thread-safe (immutable).
 */
public final class HopByHopHeaders {
    private static final Set<String> FIXED = Set.of(
            "connection",
            "http2-settings",
            "keep-alive",
            "proxy-connection",
            "proxy-authenticate",
            "proxy-authorization",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade");

    private final Set<String> names;

    private HopByHopHeaders(Set<String> names) {
        this.names = names;
    }

    /** The hop-by-hop names of a message with {@code headers}. */
    public static HopByHopHeaders of(Headers headers) {
        Set<String> names = FIXED;
        for (String value : headers.values(HeaderNames.CONNECTION)) {
            for (String token : value.split(",")) {
                String name = token.trim().toLowerCase(Locale.ROOT);
                // "Connection: keep-alive" (or close) on nearly every message names no other header: copy the
                // fixed set only when a token adds one.
                if (!name.isEmpty() && !name.equals("close") && !names.contains(name)) {
                    if (names == FIXED) {
                        names = new HashSet<>(FIXED);
                    }
                    names.add(name);
                }
            }
        }
        return new HopByHopHeaders(names);
    }

    /** Whether {@code header} stays on this hop. */
    public boolean drops(Header header) {
        // Helidon keeps each header name's lower case form: no string is built per header.
        return names.contains(header.headerName().lowerCase());
    }
}
