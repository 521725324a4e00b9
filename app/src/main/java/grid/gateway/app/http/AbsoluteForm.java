package grid.gateway.app.http;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A request line whose target is in absolute form ({@code POST http://gw/v1/chat/completions HTTP/1.1}) read as its
 * origin form ({@code POST /v1/chat/completions HTTP/1.1}) before Helidon parses it, on both listeners: RFC 9112
 * §3.2.2 has a server accept the absolute form, and an origin server use the target's authority rather than
 * {@code Host}. The gateway serves one origin whatever a request names (it routes by path, never connects to a
 * target's authority: it is no forward proxy), so the authority only has to be one: a host and an optional port of
 * digits ({@link HostField#validHost}), of an {@code http} or {@code https} target (the scheme in any case), without
 * user info (RFC 9110 §4.2.4). A target of another form, or an authority that is none, is left as it came (a path the
 * gateway does not serve: 404). An empty path is {@code /} (RFC 9112 §3.2.1).
 *
 * <p>Stateless.
 */
final class AbsoluteForm {
    private AbsoluteForm() {}

    /** {@code line}, a request line as read, with an absolute-form target read as its origin form; else itself. */
    static byte[] asOriginForm(byte[] line) {
        int target = indexOf(line, ' ', 0) + 1;
        if (target <= 0 || target >= line.length || line[target] == '/') {
            return line;
        }
        int end = indexOf(line, ' ', target);
        if (end < 0) {
            return line;
        }
        String text = new String(line, target, end - target, StandardCharsets.ISO_8859_1);
        String lower = text.toLowerCase(Locale.ROOT);
        int authority = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
        if (authority < 0) {
            return line;
        }
        int path = authority;
        while (path < text.length() && text.charAt(path) != '/' && text.charAt(path) != '?') {
            path++;
        }
        if (path == authority || !HostField.validHost(text.substring(authority, path))) {
            return line;
        }
        String origin =
                path == text.length() || text.charAt(path) == '?' ? "/" + text.substring(path) : text.substring(path);
        byte[] originBytes = origin.getBytes(StandardCharsets.ISO_8859_1);
        byte[] read = new byte[target + originBytes.length + line.length - end];
        System.arraycopy(line, 0, read, 0, target);
        System.arraycopy(originBytes, 0, read, target, originBytes.length);
        System.arraycopy(line, end, read, target + originBytes.length, line.length - end);
        return read;
    }

    private static int indexOf(byte[] line, char c, int from) {
        for (int i = from; i < line.length; i++) {
            if (line[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
