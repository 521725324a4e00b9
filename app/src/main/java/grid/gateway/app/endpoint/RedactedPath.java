package grid.gateway.app.endpoint;

import org.jspecify.annotations.Nullable;

/**
 * The one redaction of stored ids from what the gateway records (access log, its own log, spans): a path, a word a
 * client chose (a method, a request id, a model, a {@code tracestate}), or a log message. Stored ids are capabilities (whoever holds one reads what it names),
 * and a client may put one anywhere: an unknown sub-path of a stored response ({@code /v1/responses/resp_…/Cancel}),
 * an extra segment, a placeholder meant for something else ({@code …/items/resp_…}), a method or an
 * {@code X-Request-Id}.
 *
 * <p>A path is read segment by segment as an engine or a proxy behind the gateway might read it: each raw segment
 * percent-decoded as often as it decodes, up to {@link #DECODINGS} times ({@code %72esp_}, {@code resp%255F}; one
 * still encoded after that is an id), split again at an encoded slash or backslash, in any letter case, a {@code ;}
 * parameter ignored, empty and dot segments passed over ({@code //}, {@code /./}, {@code /../}). Two rules, so that neither the id's position nor its spelling reveals it:
 *
 * <ul>
 *   <li>spelling (every path, and every word): a segment holding {@code resp_} or {@code conv_} anywhere;
 *   <li>position (a path no row matches): the segment after one read as {@code responses} or {@code conversations}
 *       ({@code /V1/Responses;x/abc}, {@code /v1//responses/abc}).
 * </ul>
 *
 * Each such raw segment becomes {@value #ID}; every other byte is kept as sent. Stateless; allocates nothing for a
 * path with nothing to redact.
 */
public final class RedactedPath {
    /** What a stored id is logged as. */
    public static final String ID = "{id}";

    private static final String[] ID_MARKS = {"resp_", "conv_"};
    private static final String[] COLLECTIONS = {"responses", "conversations"};
    /**
     * How many times a segment is percent-decoded: an engine decodes once and a proxy in front of it may decode once
     * more. A segment still encoded after that is taken for an id: decoding until nothing is left costs a pass per
     * level, and a request line of {@code %25252525…} has thousands of levels.
     */
    private static final int DECODINGS = 4;

    private RedactedPath() {}

    /** {@code path} (no query) of no row: each segment that is or may be a stored id replaced by {@value #ID}. */
    public static String of(String path) {
        return redacted(path, true);
    }

    /**
     * {@code path} (no query) of a row: each segment spelled as a stored id replaced by {@value #ID}; its literal
     * segments are the table's, so none is an id by its position.
     */
    public static String bySpelling(String path) {
        return redacted(path, false);
    }

    /** {@code word} as it may be logged: {@value #ID} when it holds what may be a stored id ({@link #holdsId}). */
    public static String word(String word) {
        return holdsId(word) ? ID : word;
    }

    /**
     * Free {@code text} (a log message) with each word that is or holds what may be a stored id replaced: a word
     * with a {@code /} read as a path ({@link #of}), any other as a {@link #word}. Words end at whitespace, quotes,
     * brackets, {@code , ? # &} and control characters; every other character is kept.
     */
    public static String inText(String text) {
        if (text.indexOf('%') < 0 && !marked(text, ID_MARKS) && !marked(text, COLLECTIONS)) {
            return text;
        }
        StringBuilder out = new StringBuilder(text.length());
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i < text.length() && !endsWord(text.charAt(i))) {
                continue;
            }
            String word = text.substring(start, i);
            out.append(word.indexOf('/') >= 0 ? of(word) : word(word));
            if (i < text.length()) {
                out.append(text.charAt(i));
            }
            start = i + 1;
        }
        return out.toString();
    }

    private static boolean endsWord(char c) {
        return c <= ' ' || c == 0x7f || "\"'`,?#&()[]<>".indexOf(c) >= 0 || Character.isWhitespace(c);
    }

    /**
     * Whether {@code text}, percent-decoded as often as it decodes, holds {@code resp_} or {@code conv_} in any case;
     * true when it is still encoded after {@link #DECODINGS} decodings.
     */
    public static boolean holdsId(String text) {
        if (text.indexOf('%') < 0) {
            return marked(text, ID_MARKS);
        }
        String decoded = decoded(text);
        return decoded == null || marked(decoded, ID_MARKS);
    }

    private static String redacted(String path, boolean byPosition) {
        if (path.indexOf('%') < 0 && path.indexOf('\\') < 0 && !marked(path, ID_MARKS)) {
            if (!byPosition || !marked(path, COLLECTIONS)) {
                return path;
            }
        }
        StringBuilder out = new StringBuilder(path.length());
        boolean afterCollection = false;
        int start = 0;
        while (true) {
            int slash = path.indexOf('/', start);
            int end = slash < 0 ? path.length() : slash;
            String raw = path.substring(start, end);
            String segment = raw.indexOf('%') < 0 ? raw : decoded(raw);
            boolean id = segment == null || marked(segment, ID_MARKS);
            if (segment == null) {
                afterCollection = false; // encoded beyond reading: an id itself, and no collection's name
            } else {
                // An encoded slash or backslash makes one raw segment several to a reader that decodes first.
                for (String part : segment.split("[/\\\\]", -1)) {
                    if (part.isEmpty() || part.equals(".") || part.equals("..")) {
                        continue;
                    }
                    id |= byPosition && afterCollection;
                    afterCollection = isCollection(part);
                }
            }
            out.append(id ? ID : raw);
            if (slash < 0) {
                return out.toString();
            }
            out.append('/');
            start = slash + 1;
        }
    }

    private static boolean isCollection(String part) {
        int parameter = part.indexOf(';');
        String name = parameter < 0 ? part : part.substring(0, parameter);
        for (String collection : COLLECTIONS) {
            if (name.equalsIgnoreCase(collection)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code text} holds one of {@code marks}, in any letter case. */
    private static boolean marked(String text, String[] marks) {
        for (int i = 0; i < text.length(); i++) {
            for (String mark : marks) {
                if (text.regionMatches(true, i, mark, 0, mark.length())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@code text} with every {@code %XX} decoded, again and again until none is left; null when that takes more than
     * {@link #DECODINGS} passes.
     */
    private static @Nullable String decoded(String text) {
        String current = text;
        for (int pass = 0; pass <= DECODINGS; pass++) {
            StringBuilder out = new StringBuilder(current.length());
            for (int i = 0; i < current.length(); i++) {
                char c = current.charAt(i);
                int high = i + 2 < current.length() && c == '%' ? hex(current.charAt(i + 1)) : -1;
                int low = high < 0 ? -1 : hex(current.charAt(i + 2));
                if (low < 0) {
                    out.append(c);
                } else {
                    out.append((char) (high * 16 + low));
                    i += 2;
                }
            }
            if (out.length() == current.length()) {
                return current;
            }
            current = out.toString();
        }
        return null;
    }

    /** The value of ASCII hex digit {@code c}, or -1 (no other script's digits: an engine decodes none). */
    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        char lower = (char) (c | 0x20);
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }
}
