package grid.gateway.app.endpoint;

/**
 * A path no row matches, as it may be logged or traced: without a stored id. Stored ids are capabilities (whoever
 * holds one reads what it names), and a path the table does not serve may still carry one: an unknown sub-path of a
 * stored response ({@code /v1/responses/resp_…/Cancel}), an extra segment ({@code …/input_items/extra}), an id
 * where a client put it by mistake. Two rules, so that neither the id's position nor its spelling reveals it:
 * the segment after {@code /v1/responses/} or {@code /v1/conversations/} is an id by its position, and any segment
 * that starts {@code resp_} or {@code conv_} is one by its spelling. Each becomes {@value #ID}.
 *
 * <p>Stateless.
 */
public final class RedactedPath {
    /** What a stored id is logged as. */
    public static final String ID = "{id}";

    private static final String[] COLLECTIONS = {"/v1/responses/", "/v1/conversations/"};
    private static final String[] ID_PREFIXES = {"resp_", "conv_"};

    private RedactedPath() {}

    /** {@code path} (no query) with each segment that is or may be a stored id replaced by {@value #ID}. */
    public static String of(String path) {
        int idAt = -1;
        for (String collection : COLLECTIONS) {
            if (path.startsWith(collection) && path.length() > collection.length()) {
                idAt = collection.length();
            }
        }
        StringBuilder out = null;
        int start = 0;
        while (start <= path.length()) {
            int slash = path.indexOf('/', start);
            int end = slash < 0 ? path.length() : slash;
            if (end > start && (start == idAt || looksLikeId(path, start))) {
                if (out == null) {
                    out = new StringBuilder(path.length()).append(path, 0, start);
                }
                out.append(ID);
            } else if (out != null) {
                out.append(path, start, end);
            }
            if (slash < 0) {
                break;
            }
            if (out != null) {
                out.append('/');
            }
            start = slash + 1;
        }
        return out == null ? path : out.toString();
    }

    private static boolean looksLikeId(String path, int start) {
        for (String prefix : ID_PREFIXES) {
            if (path.startsWith(prefix, start)) {
                return true;
            }
        }
        return false;
    }
}
