package grid.gateway.app.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The kernel's view of this host's TCP connections, read from Linux's {@code /proc/net/tcp} and
 * {@code /proc/net/tcp6}: for each connection (local port, remote address and port) its TCP state.
 *
 * <p>Only the state is used, to learn that a client closed its side of a connection ({@code CLOSE_WAIT}) or reset it
 * (the entry is gone) while the gateway has nothing to write to it. Reading the table touches no socket.
 *
 * <p>Thread-safe (immutable once parsed).
 */
final class KernelTcpTable {
    /** The peer sent FIN and the gateway has not closed its side: the client went away. */
    static final int CLOSE_WAIT = 0x08;

    private static final Path TCP4 = Path.of("/proc/net/tcp");
    private static final Path TCP6 = Path.of("/proc/net/tcp6");

    /** One connection as the gateway's listener sees it. */
    record Connection(int localPort, InetAddress remote, int remotePort) {
        static Connection of(int localPort, InetSocketAddress remote) {
            return new Connection(localPort, remote.getAddress(), remote.getPort());
        }
    }

    private final Map<Connection, Integer> states;

    private KernelTcpTable(Map<Connection, Integer> states) {
        this.states = states;
    }

    /** Whether this system exposes the tables (Linux); elsewhere the probe stays off. */
    static boolean available() {
        return Files.isReadable(TCP4);
    }

    /** Reads both tables now. */
    static KernelTcpTable read() throws IOException {
        StringBuilder text = new StringBuilder(Files.readString(TCP4));
        if (Files.isReadable(TCP6)) {
            text.append('\n').append(Files.readString(TCP6));
        }
        return parse(text.toString());
    }

    /** Parses table text; lines that are not connection rows (headers, blank or malformed lines) are skipped. */
    static KernelTcpTable parse(String text) {
        Map<Connection, Integer> states = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length < 4 || !fields[0].endsWith(":")) {
                continue;
            }
            try {
                int localPort = port(fields[1]);
                InetAddress remote = address(fields[2]);
                states.put(new Connection(localPort, remote, port(fields[2])), Integer.parseInt(fields[3], 16));
            } catch (IllegalArgumentException | UnknownHostException malformed) {
                // Not a row this parser understands: skip it, as if the connection were not listed.
            }
        }
        return new KernelTcpTable(states);
    }

    /** The TCP state of {@code connection}, if the kernel lists it. */
    Optional<Integer> state(Connection connection) {
        return Optional.ofNullable(states.get(connection));
    }

    private static int port(String endpoint) {
        int colon = endpoint.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("no port");
        }
        return Integer.parseInt(endpoint.substring(colon + 1), 16);
    }

    /**
     * The address of {@code HEX:PORT}: the kernel prints each 32-bit word in host byte order (little-endian on the
     * platforms we run on), so every group of four bytes is reversed; an IPv4-mapped IPv6 address comes back as
     * the IPv4 address, as Java reports accepted peers.
     */
    private static InetAddress address(String endpoint) throws UnknownHostException {
        String hex = endpoint.substring(0, endpoint.indexOf(':'));
        if (hex.length() != 8 && hex.length() != 32) {
            throw new IllegalArgumentException("address of " + hex.length() + " hex digits");
        }
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                int at = (word * 4 + 3 - i) * 2;
                bytes[word * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return InetAddress.getByAddress(bytes);
    }
}
