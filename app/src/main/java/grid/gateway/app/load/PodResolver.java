package grid.gateway.app.load;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Resolves a {@code metrics_dns} host name to its pods' addresses; injected so that tests decide what a name
 * resolves to, and when it fails.
 */
@FunctionalInterface
public interface PodResolver {
    /** The JDK's resolver: the system's, or the hosts file {@code -Djdk.net.hosts.file} names. */
    PodResolver SYSTEM = host -> List.of(InetAddress.getAllByName(host));

    /**
     * Every address {@code host} resolves to now.
     *
     * @throws UnknownHostException when it resolves to none
     */
    List<InetAddress> resolve(String host) throws UnknownHostException;
}
