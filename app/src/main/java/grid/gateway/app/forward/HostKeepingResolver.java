package grid.gateway.app.forward;

import io.helidon.webclient.api.DnsAddressLookup;
import io.helidon.webclient.spi.DnsResolver;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Resolves a cluster URL's host to an address that still carries the host as written. Helidon's TLS socket is opened
 * with the resolved address's {@link InetAddress#getHostName()}, and that of an address resolved from an IP literal
 * is a reverse lookup: {@code https://127.0.0.1:8443} would be checked against {@code localhost}, so a certificate
 * naming only {@code IP:127.0.0.1} would be refused. Keeping the literal makes the identity check (and SNI, which
 * the JDK leaves out for an address) use what the operator wrote. Names resolve as the JDK resolves them, first
 * address by the lookup's order.
 */
public final class HostKeepingResolver implements DnsResolver {
    /** The one instance; it holds nothing. */
    public static final HostKeepingResolver INSTANCE = new HostKeepingResolver();

    private HostKeepingResolver() {}

    @Override
    public InetAddress resolveAddress(String hostname, DnsAddressLookup lookup) {
        String host = hostname.startsWith("[") && hostname.endsWith("]")
                ? hostname.substring(1, hostname.length() - 1)
                : hostname;
        try {
            InetAddress[] all = InetAddress.getAllByName(host);
            InetAddress[] preferred = lookup.filter(all);
            InetAddress chosen = preferred.length > 0 ? preferred[0] : all[0];
            return InetAddress.getByAddress(host, chosen.getAddress());
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve " + host, e);
        }
    }
}
