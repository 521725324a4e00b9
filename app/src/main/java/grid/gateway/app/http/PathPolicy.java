package grid.gateway.app.http;

import grid.gateway.app.endpoint.Classified;
import grid.gateway.app.endpoint.EndpointTable;
import grid.gateway.routing.grid.Role;
import java.util.List;

/**
 * Which classified request paths a replica serves (docs/design.md §8).
 *
 * <p>Both roles first refuse paths that could mean something else after decoding or normalisation: an encoded
 * slash or backslash, a dot segment, an empty segment (double or trailing slash). A consumer then serves exactly the
 * paths its {@link EndpointTable} lists, written without any percent-encoding: an engine decodes
 * {@code input_item%73} into a path the gateway never saw, which would bypass the pin. A provider serves only its
 * allowed paths, by exact string match, so a stored response held at another site cannot be fetched through it; and
 * it forwards no request whose body names a stored id ({@link #servesStoredIds()}), so one cannot be continued, and so
 * read back, through it either.
 *
 * <p>Thread-safe (immutable).
 */
public final class PathPolicy {
    private final Role role;
    private final List<String> allowedPaths;

    /** A policy for {@code role}; {@code allowedPaths} matter for a provider only. */
    public PathPolicy(Role role, List<String> allowedPaths) {
        this.role = role;
        this.allowedPaths = List.copyOf(allowedPaths);
    }

    /** Whether the request path {@code classified} is served. */
    public boolean serves(Classified classified) {
        String rawPath = classified.rawPath();
        if (!isPlain(rawPath)) {
            return false;
        }
        if (role == Role.PROVIDER) {
            return allowedPaths.contains(rawPath);
        }
        return classified.listed() && rawPath.indexOf('%') < 0;
    }

    /**
     * Whether a request naming a stored id in its body ({@code previous_response_id}, {@code conversation}) is
     * served: by a consumer, pinned to the cluster that holds it; never by a provider (docs/decisions.md, "A
     * provider-role gateway").
     */
    public boolean servesStoredIds() {
        return role == Role.CONSUMER;
    }

    /**
     * No encoded slash or backslash, no dot segment, no empty segment. One pass over the chars, allocating nothing:
     * it runs on every request.
     */
    static boolean isPlain(String rawPath) {
        int length = rawPath.length();
        if (length < 2 || rawPath.charAt(0) != '/') {
            return false;
        }
        int segmentStart = 1;
        for (int i = 1; i <= length; i++) {
            char c = i < length ? rawPath.charAt(i) : '/';
            if (c == '/') {
                if (isEmptyOrDots(rawPath, segmentStart, i)) {
                    return false;
                }
                segmentStart = i + 1;
            } else if (c == '\\' || (c == '%' && isEncodedSlashOrDot(rawPath, i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean isEmptyOrDots(String path, int start, int end) {
        int length = end - start;
        return length == 0
                || (length == 1 && path.charAt(start) == '.')
                || (length == 2 && path.charAt(start) == '.' && path.charAt(start + 1) == '.');
    }

    /** {@code %2F}, {@code %5C} or {@code %2E} in either case at {@code percent}. */
    private static boolean isEncodedSlashOrDot(String path, int percent) {
        if (percent + 2 >= path.length()) {
            return false;
        }
        char high = path.charAt(percent + 1);
        char low = Character.toLowerCase(path.charAt(percent + 2));
        return (high == '2' && (low == 'f' || low == 'e')) || (high == '5' && low == 'c');
    }
}
