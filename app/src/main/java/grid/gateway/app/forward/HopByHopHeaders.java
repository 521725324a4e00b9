package grid.gateway.app.forward;

import io.helidon.http.Header;
import io.helidon.http.HeaderName;
import io.helidon.http.HeaderNames;
import io.helidon.http.Headers;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Headers that belong to one connection and are never forwarded (RFC 9110 §7.6.1): the fixed list, plus every
 * header the message's own {@code Connection} header names. {@code HTTP2-Settings} is in the fixed list although
 * RFC 9113 would have {@code Connection} name it: it only ever accompanies an h2c upgrade of this one connection.
 *
 * <p>Every message is filtered, so the common cases cost nothing per message: without a {@code Connection} header,
 * or with one naming only {@code keep-alive}, {@code close} or fixed names, {@link #of} returns one shared instance
 * and reads the value in place (no split, no lower-case copies); only a token naming a further header builds a set.
 *
 * <p>Thread-safe (immutable).
 */
public final class HopByHopHeaders {
    private static final List<String> FIXED_NAMES = List.of(
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
    private static final Set<String> FIXED = Set.copyOf(FIXED_NAMES);
    /**
     * The fixed names among Helidon's known header names, by {@link HeaderName#index()}: a header Helidon parsed
     * with a known name carries that index, so {@link #drops} of such a header is one array read.
     */
    private static final boolean[] FIXED_BY_INDEX = fixedByIndex();

    private static final HopByHopHeaders FIXED_ONLY = new HopByHopHeaders(FIXED);

    private final Set<String> names;

    private HopByHopHeaders(Set<String> names) {
        this.names = names;
    }

    /** The hop-by-hop names of a message with {@code headers}. */
    public static HopByHopHeaders of(Headers headers) {
        if (!headers.contains(HeaderNames.CONNECTION)) {
            return FIXED_ONLY;
        }
        // Headers.values(name) runs a stream per call (about 560 bytes); the header's own values do not.
        Header connection = headers.get(HeaderNames.CONNECTION);
        Set<String> names = FIXED;
        if (connection.valueCount() == 1) {
            names = named(connection.get(), names);
        } else {
            for (String value : connection.allValues()) {
                names = named(value, names);
            }
        }
        return names == FIXED ? FIXED_ONLY : new HopByHopHeaders(names);
    }

    /** {@code names} plus the headers one Connection value names: the same set unless a token adds a name. */
    private static Set<String> named(String value, Set<String> names) {
        Set<String> result = names;
        int at = 0;
        while (at <= value.length()) {
            int comma = value.indexOf(',', at);
            int end = comma < 0 ? value.length() : comma;
            int start = at;
            while (start < end && isSpace(value.charAt(start))) {
                start++;
            }
            int stop = end;
            while (stop > start && isSpace(value.charAt(stop - 1))) {
                stop--;
            }
            // "Connection: keep-alive" (or close) on nearly every message names no other header: a set is built
            // only when a token adds one.
            if (stop > start && !isKnown(value, start, stop - start)) {
                if (result == FIXED) {
                    result = new HashSet<>(FIXED);
                }
                result.add(value.substring(start, stop).toLowerCase(Locale.ROOT));
            }
            at = end + 1;
        }
        return result;
    }

    /** Whether {@code header} stays on this hop. */
    public boolean drops(Header header) {
        HeaderName name = header.headerName();
        int index = name.index();
        if (names == FIXED && index >= 0) {
            // A known name (index >= 0 only for Helidon's own constants) and only the fixed names to drop.
            return index < FIXED_BY_INDEX.length && FIXED_BY_INDEX[index];
        }
        // Helidon keeps each header name's lower case form: no string is built per header.
        return names.contains(name.lowerCase());
    }

    private static boolean[] fixedByIndex() {
        int size = 0;
        for (String fixed : FIXED_NAMES) {
            size = Math.max(size, HeaderNames.create(fixed).index() + 1);
        }
        boolean[] byIndex = new boolean[size];
        for (String fixed : FIXED_NAMES) {
            int index = HeaderNames.create(fixed).index();
            if (index >= 0) {
                byIndex[index] = true;
            }
        }
        return byIndex;
    }

    /** Whether the token at {@code start} is {@code close} or a fixed name, in any ASCII case, without copying it. */
    private static boolean isKnown(String value, int start, int length) {
        if (is(value, start, length, "close")) {
            return true;
        }
        for (String fixed : FIXED_NAMES) {
            if (is(value, start, length, fixed)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the token equals {@code name} (lower-case ASCII) ignoring ASCII case. Only ASCII letters are folded,
     * so a token with any other character is not a known name: it is lower-cased into the set.
     */
    private static boolean is(String value, int start, int length, String name) {
        if (length != name.length()) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = value.charAt(start + i);
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c + ('a' - 'A'));
            }
            if (c != name.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The white space {@code String.trim} removes around a token: every char up to U+0020, control characters too. */
    private static boolean isSpace(char c) {
        return c <= ' ';
    }
}
