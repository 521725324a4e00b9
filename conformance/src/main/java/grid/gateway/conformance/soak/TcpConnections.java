package grid.gateway.conformance.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Counts open TCP connections from the kernel's tables ({@code /proc/net/tcp} and {@code /proc/net/tcp6}, Linux
 * only), to check that a gateway closes its upstream connections.
 *
 * <p>Stateless and thread-safe.
 */
public final class TcpConnections {
    private static final String ESTABLISHED = "01";
    private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    private TcpConnections() {}

    /** Whether the tables can be read here. */
    public static boolean available() {
        return Files.isReadable(TABLES.getFirst());
    }

    /**
     * ESTABLISHED connections whose remote port is one of {@code ports}: on loopback, the client side of every
     * connection to a server listening there (the server's side has the port as its local one and is not counted).
     */
    public static int establishedTo(Set<Integer> ports) {
        int count = 0;
        for (Path table : TABLES) {
            List<String> lines;
            try {
                lines = Files.readAllLines(table);
            } catch (IOException e) {
                continue; // no IPv6 table, say
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] fields = line.trim().split("\\s+");
                if (fields.length > 3 && fields[3].equals(ESTABLISHED) && ports.contains(port(fields[2]))) {
                    count++;
                }
            }
        }
        return count;
    }

    private static int port(String address) {
        int colon = address.lastIndexOf(':');
        return colon < 0 ? -1 : Integer.parseInt(address.substring(colon + 1), 16);
    }
}
