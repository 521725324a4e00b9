package grid.gateway.app.http;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The start of a request line found over its limit, which Helidon 4.5 refuses (414) without giving its method or
 * target: kept by the connection's reader ({@link RequestLineKeeper}) on the connection's thread, taken by the refusal
 * ({@link ParseRefusal}) on the same thread, so that the 414 is answered in the shape of the API the target lies under
 * and, to {@code HEAD}, without content.
 *
 * @param method the line's method, as sent
 * @param path the whole path when the line shows where it ends (a query or a space after it), else the path's complete
 *     segments, then {@code /…}, which lies under the same API row as the path itself
 */
record OverlongLine(String method, String path) {
    /** The start of the line this thread last found over its limit, as sent; cleared once taken. */
    private static final ThreadLocal<byte[]> KEPT = new ThreadLocal<>();

    /** Keeps {@code start}, the first bytes of a line over its limit, for this thread's refusal. */
    static void keep(byte[] start) {
        KEPT.set(start);
    }

    /**
     * The request line this thread last found over its limit (and forgets it); empty when none was, or it does not
     * start with a method and a path.
     */
    static Optional<OverlongLine> take() {
        byte[] start = KEPT.get();
        KEPT.remove();
        if (start == null) {
            return Optional.empty();
        }
        String line = new String(start, StandardCharsets.ISO_8859_1);
        int space = line.indexOf(' ');
        if (space < 0 || space + 1 >= line.length() || line.charAt(space + 1) != '/') {
            return Optional.empty();
        }
        String target = line.substring(space + 1);
        int end = 0;
        while (end < target.length() && target.charAt(end) != ' ' && target.charAt(end) != '?') {
            end++;
        }
        String path = end < target.length()
                ? target.substring(0, end)
                : target.substring(0, target.lastIndexOf('/')) + "/\u2026";
        return Optional.of(new OverlongLine(line.substring(0, space), path));
    }
}
