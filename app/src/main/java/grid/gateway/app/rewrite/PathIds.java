package grid.gateway.app.rewrite;

import static java.util.Objects.requireNonNull;

import grid.gateway.routing.tag.IdKind;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Finds and replaces the stored id in a raw request path (SPEC §5): {@code /v1/responses/{id}} with nothing,
 * {@code /cancel} or {@code /input_items} after it, and {@code /v1/conversations/{id}} with nothing, {@code /items}
 * or {@code /items/{item_id}} after it. The query string is never read and never changed.
 *
 * <p>{@code input_tokens} and {@code compact} under {@code /v1/responses/} are endpoints, never ids. Any other shape
 * (an empty segment, a trailing slash, another suffix) holds no id, and the caller decides what it is. A segment is
 * taken raw: one holding a percent escape is returned as it is and then fails tag parsing (a 404), since a tag uses
 * only unreserved characters and no client needs to escape one. Stateless and thread-safe; never throws on any path.
 */
public final class PathIds {
    private static final String RESPONSES = "/v1/responses/";
    private static final String CONVERSATIONS = "/v1/conversations/";
    private static final String ITEMS = "/items";
    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    /** Creates a finder; it holds no state, so one serves every request. */
    public PathIds() {}

    /** The stored-id segment of {@code rawPath}, if its shape has one. */
    public Optional<PathId> find(String rawPath) {
        requireNonNull(rawPath, "rawPath");
        int query = rawPath.indexOf('?');
        int pathEnd = query < 0 ? rawPath.length() : query;
        if (rawPath.startsWith(RESPONSES)) {
            return segment(rawPath, RESPONSES.length(), pathEnd, IdKind.RESP)
                    .filter(id ->
                            !id.value().equals("input_tokens") && !id.value().equals("compact"))
                    .filter(id -> isResponseSuffix(rawPath, id.end(), pathEnd));
        }
        if (rawPath.startsWith(CONVERSATIONS)) {
            return segment(rawPath, CONVERSATIONS.length(), pathEnd, IdKind.CONV)
                    .filter(id -> isConversationSuffix(rawPath, id.end(), pathEnd));
        }
        return Optional.empty();
    }

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

    /** The non-empty segment from {@code start} to the next '/' or {@code pathEnd}. */
    private static Optional<PathId> segment(String path, int start, int pathEnd, IdKind kind) {
        int slash = path.indexOf('/', start);
        int end = slash < 0 || slash > pathEnd ? pathEnd : slash;
        if (end == start) {
            return Optional.empty();
        }
        return Optional.of(new PathId(kind, path.substring(start, end), start, end));
    }

    private static boolean isResponseSuffix(String path, int from, int pathEnd) {
        return from == pathEnd
                || isExactly(path, from, pathEnd, "/cancel")
                || isExactly(path, from, pathEnd, "/input_items");
    }

    private static boolean isConversationSuffix(String path, int from, int pathEnd) {
        if (from == pathEnd || isExactly(path, from, pathEnd, ITEMS)) {
            return true;
        }
        // /items/{item_id}: one more non-empty segment, and nothing after it.
        if (!path.startsWith(ITEMS + "/", from)) {
            return false;
        }
        int itemStart = from + ITEMS.length() + 1;
        int slash = path.indexOf('/', itemStart);
        return itemStart < pathEnd && (slash < 0 || slash >= pathEnd);
    }

    private static boolean isExactly(String path, int from, int to, String text) {
        return to - from == text.length() && path.startsWith(text, from);
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
