package grid.gateway.app.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks the URLs of backend clusters ({@code url}, {@code metrics_url}): absolute {@code http} or {@code https},
 * with a host, a port (when written) in 1..65535, and no user info, query or fragment. Trailing slashes of the path
 * are dropped, since request paths and {@code /metrics} are appended to it.
 *
 * <p>Stateless and thread-safe.
 */
final class HttpUrl {
    /** What a refused URL is told, before the detail. */
    static final String EXPECTED = "an http or https URL";

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
