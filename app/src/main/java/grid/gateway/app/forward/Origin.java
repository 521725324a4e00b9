package grid.gateway.app.forward;

import static java.util.Objects.requireNonNull;

import io.helidon.common.tls.Tls;
import java.net.URI;
import org.jspecify.annotations.Nullable;

/**
 * Where a connection goes and how it is secured: the pool's key. Connections made with one {@link Tls} are never
 * used for another, so a rotated certificate reaches new connections only ({@code UpstreamTlsCache} keeps one
 * {@link Tls} per unchanged setting, so an unchanged one keeps its connections).
 *
 * <p>Thread-safe (immutable).
 *
 * @param host the host as written in the cluster's URL (an IP literal stays one: the TLS identity check uses it)
 * @param port the port, the scheme's default when the URL has none
 * @param tls the TLS of an https cluster, or {@code null} for plain http
 */
record Origin(String host, int port, @Nullable Tls tls) {
    Origin {
        requireNonNull(host, "host");
    }

    /** The origin of {@code url}, with {@code tls} when it is https. */
    static Origin of(URI url, @Nullable Tls tls) {
        boolean https = "https".equalsIgnoreCase(url.getScheme());
        int port = url.getPort() >= 0 ? url.getPort() : https ? 443 : 80;
        return new Origin(url.getHost(), port, https ? tls : null);
    }

    /** The {@code Host} field: the host, and the port when it is not the scheme's default. */
    String authority() {
        boolean defaultPort = port == (tls == null ? 80 : 443);
        String name = host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
        return defaultPort ? name : name + ":" + port;
    }
}
