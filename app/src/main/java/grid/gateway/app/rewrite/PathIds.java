package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * Replaces the stored id in a raw request path (docs/design.md §5); where the id is, the endpoint table found when it classified
 * the path ({@code grid.gateway.app.endpoint.EndpointTable}). The query string is never read and never changed.
 *
 * <p>Stateless and thread-safe.
 */
public final class PathIds {
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    /** Creates a replacer; it holds no state, so one serves every request. */
    public PathIds() {}

    /**
     * {@code rawPath} with the segment {@code id} replaced by {@code replacement}; every other char, the query string
     * included, unchanged. Chars of {@code replacement} outside the unreserved set (A-Z a-z 0-9 - . _ ~) are
     * percent-encoded as UTF-8, so the path keeps its shape whatever the replacement holds.
     *
     * @throws IllegalArgumentException if {@code id} is not where it was found in {@code rawPath}
     */
    public String replace(String rawPath, PathId id, String replacement) {
        requireNonNull(rawPath, "rawPath");
        requireNonNull(id, "id");
        requireNonNull(replacement, "replacement");
        if (id.end() > rawPath.length() || !rawPath.startsWith(id.value(), id.start())) {
            throw new IllegalArgumentException("path does not hold the id segment at " + id.start());
        }
        return rawPath.substring(0, id.start()) + encode(replacement) + rawPath.substring(id.end());
    }

    private static String encode(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (byte c : text.getBytes(StandardCharsets.UTF_8)) {
            if (isUnreserved(c)) {
                out.append((char) c);
            } else {
                out.append('%').append((char) HEX[(c >>> 4) & 0xF]).append((char) HEX[c & 0xF]);
            }
        }
        return out.toString();
    }

    private static boolean isUnreserved(byte c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '.'
                || c == '_'
                || c == '~';
    }
}
