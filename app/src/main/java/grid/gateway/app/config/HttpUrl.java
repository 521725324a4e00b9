package grid.gateway.app.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks the URLs of backend clusters ({@code url}, {@code metrics_url}): absolute {@code http} or {@code https},
 * with a host, a port (when written) in 1..65535, and no user info, query or fragment; at most
 * {@value #MAX_CHARS} characters of printable US-ASCII. Trailing slashes of the path are dropped, since request paths
 * and {@code /metrics} are appended to it.
 *
 * <p>Stateless and thread-safe.
 */
final class HttpUrl {
    /** What a refused URL is told, before the detail. */
    static final String EXPECTED = "an http or https URL";

    /**
     * The longest URL, in characters. A cluster's URL path begins the request line of every request forwarded to it,
     * and its URLs are logged (the pods a {@code metrics_dns} name resolves to) and shown in the effective config; a
     * browser's and most servers' customary limit, far past any engine's address.
     */
    static final int MAX_CHARS = 2048;

    private HttpUrl() {}

    /** The URL in {@code text}, or empty after recording the problem at {@code path}. */
    static Optional<URI> parse(String path, String text, Problems problems) {
        String problem = problem(text);
        if (!problem.isEmpty()) {
            problems.add(path, text, problem);
            return Optional.empty();
        }
        // With no query or fragment the text ends with the path, so its trailing slashes end the text.
        String rawPath = URI.create(text).getRawPath();
        int slashes = rawPath.length() - rawPath.replaceAll("/+$", "").length();
        return Optional.of(URI.create(text.substring(0, text.length() - slashes)));
    }

    /** {@code <url>/metrics}, the default {@code metrics_url} (docs/design.md §6). */
    static URI metrics(URI url) {
        return URI.create(url + "/metrics");
    }

    private static String problem(String text) {
        if (text.length() > MAX_CHARS) {
            return EXPECTED + " of at most " + MAX_CHARS + " characters";
        }
        if (!text.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
            // java.net.URI takes letters beyond US-ASCII, and invisible ones, as they are; a request line cannot.
            return EXPECTED + " in printable US-ASCII (percent-encode anything else)";
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            return EXPECTED;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return EXPECTED;
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            return EXPECTED + " with a host";
        }
        if (uri.getRawUserInfo() != null) {
            return EXPECTED + " without user info (it would show in logs)";
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            return EXPECTED + " without query or fragment";
        }
        if (!WrittenPort.valid(uri)) {
            return EXPECTED + " with a port in 1..65535";
        }
        return "";
    }
}
