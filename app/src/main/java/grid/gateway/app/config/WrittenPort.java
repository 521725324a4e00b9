package grid.gateway.app.config;

import java.net.URI;

/**
 * Whether the port a URL writes, if any, is one a connection can be made to. {@link URI#getPort()} reads -1 both
 * for no port and for an empty one ({@code http://host:}), and 0 for {@code :0}, neither of which can be dialled: a
 * URL that writes a colon after its host must write a port in 1..65535 after it.
 *
 * <p>Stateless and thread-safe.
 */
final class WrittenPort {
    private WrittenPort() {}

    /** True when {@code uri} writes no port, or writes one in 1..65535. */
    static boolean valid(URI uri) {
        String authority = uri.getRawAuthority();
        if (authority != null && authority.endsWith(":")) {
            return false;
        }
        return uri.getPort() == -1 || (uri.getPort() >= 1 && uri.getPort() <= 65_535);
    }
}
