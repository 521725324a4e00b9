package grid.gateway.app.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The kernel's view of this host's TCP connections, read from Linux's {@code /proc/net/tcp} and
 * {@code /proc/net/tcp6}: for each connection (local address and port, remote address and port) its TCP state and its
 * send queue.
 *
 * <p>The state tells that a client closed its side of a connection ({@code CLOSE_WAIT}) or reset it (the entry is
 * gone) while the gateway has nothing to write to it. The send queue ({@code tx_queue}: bytes written to the socket
 * that the client has not acknowledged yet) tells whether a client whose answer the gateway is blocked writing is
 * still taking bytes: while no write adds to it, it shrinks exactly when the client acknowledges some. Reading the
 * table touches no socket.
 *
 * <p>Thread-safe (immutable once parsed).
 */
final class KernelTcpTable {
    /** The peer sent FIN and the gateway has not closed its side: the client went away. */
    static final int CLOSE_WAIT = 0x08;

    private static final Path TCP4 = Path.of("/proc/net/tcp");
    private static final Path TCP6 = Path.of("/proc/net/tcp6");

    /**
     * One connection as the gateway's listener sees it: all four parts, since two connections may share three. A
     * client port is given again for another destination (Linux reuses a source port when the four parts differ), so
     * one client address and port may reach 127.0.0.1:p and 127.0.0.2:p, each another listener's, at once.
     */
    record Connection(InetAddress local, int localPort, InetAddress remote, int remotePort) {
        static Connection of(InetSocketAddress local, InetSocketAddress remote) {
            return new Connection(local.getAddress(), local.getPort(), remote.getAddress(), remote.getPort());
        }
    }

    /** A {@code localPort} of {@link #rows} that keeps rows of every local port. */
    private static final int ANY_PORT = -1;

    /** The longest line read: a row is about 150 bytes (tcp6 with its 32-digit addresses). */
    static final int LINE_LIMIT = 512;
    /** The read buffer of a table. */
    private static final int READ_BUFFER = 8192;

    /** A send queue the row does not tell. */
    private static final long UNKNOWN = -1;

    /** A connection's row: its TCP state and its send queue in bytes ({@link #UNKNOWN} if not told). */
    private record Row(int state, long sendQueue) {}

    private final Map<Connection, Row> states;

    private KernelTcpTable(Map<Connection, Row> states) {
        this.states = states;
    }

    /** Whether this system exposes the tables (Linux); elsewhere the probe stays off. */
    static boolean available() {
        return Files.isReadable(TCP4);
    }

    /**
     * Reads both tables now, keeping the rows of {@code wanted} only. A busy gateway's tables list every connection of
     * the host (tens of thousands of rows with long streams open); a row is told apart by its ports before anything
     * else of it is parsed, so a sweep costs little more than the kernel's own writing of the table.
     */
    static KernelTcpTable read(Set<Connection> wanted) throws IOException {
        Map<Connection, Row> states = new HashMap<>();
        if (wanted.isEmpty()) {
            return new KernelTcpTable(states);
        }
        Kept kept = new Kept(ANY_PORT, portPairs(wanted), wanted);
        read(TCP4, kept, states);
        if (Files.isReadable(TCP6)) {
            read(TCP6, kept, states);
        }
        return new KernelTcpTable(states);
    }

    /**
     * Reads both tables now, keeping every row whose local port is {@code localPort}: every connection one listener
     * accepted, read once for all of them.
     */
    static KernelTcpTable readLocalPort(int localPort) throws IOException {
        return readLocalPort(localPort, TCP4, TCP6);
    }

    /** {@link #readLocalPort(int)} from the tables at {@code tcp4} and {@code tcp6} (tests: synthetic tables). */
    static KernelTcpTable readLocalPort(int localPort, Path tcp4, Path tcp6) throws IOException {
        Map<Connection, Row> states = new HashMap<>();
        Kept kept = Kept.port(localPort);
        read(tcp4, kept, states);
        if (Files.isReadable(tcp6)) {
            read(tcp6, kept, states);
        }
        return new KernelTcpTable(states);
    }

    /**
     * Adds the rows of the table at {@code file} to {@code states} as {@link #rows} does, reading it a line at a time:
     * what is held is a read buffer, one line and the rows kept, however many connections the host has (the table
     * lists every one of them, not only the gateway's).
     */
    private static void read(Path file, Kept kept, Map<Connection, Row> states) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            rows(in, kept, states);
        }
    }

    /** {@link #rows(InputStream, Kept, Map)} of table text. */
    private static void rows(String text, Kept kept, Map<Connection, Row> states) {
        try {
            rows(new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1)), kept, states);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
    }

    /** Parses table text as {@link #readLocalPort(int)} reads the kernel's: the rows of {@code localPort} only. */
    static KernelTcpTable parseLocalPort(String text, int localPort) {
        Map<Connection, Row> states = new HashMap<>();
        rows(text, Kept.port(localPort), states);
        return new KernelTcpTable(states);
    }

    /** Parses table text whole; lines that are not connection rows (headers, blank or malformed lines) are skipped. */
    static KernelTcpTable parse(String text) {
        Map<Connection, Row> states = new HashMap<>();
        rows(text, Kept.port(ANY_PORT), states);
        return new KernelTcpTable(states);
    }

    /** Parses table text as {@link #read(Set)} reads the kernel's: the rows of {@code wanted} only. */
    static KernelTcpTable parse(String text, Set<Connection> wanted) {
        Map<Connection, Row> states = new HashMap<>();
        rows(text, new Kept(ANY_PORT, portPairs(wanted), wanted), states);
        return new KernelTcpTable(states);
    }

    /**
     * Adds the rows of the table read from {@code in} that {@code kept} names to {@code states}. One line is held at a
     * time, in a buffer of {@link #LINE_LIMIT} bytes; a longer line is no row the kernel writes and is skipped.
     */
    private static void rows(InputStream in, Kept kept, Map<Connection, Row> states) throws IOException {
        byte[] chunk = new byte[READ_BUFFER];
        byte[] line = new byte[LINE_LIMIT];
        int[] fields = new int[10]; // start and end of the fields sl, local_address, rem_address, st, tx_queue:rx_queue
        int length = 0;
        boolean tooLong = false;
        for (int read = in.read(chunk); read >= 0; read = in.read(chunk)) {
            for (int i = 0; i < read; i++) {
                byte b = chunk[i];
                if (b == '\n') {
                    if (!tooLong) {
                        row(line, length, fields, kept, states);
                    }
                    length = 0;
                    tooLong = false;
                } else if (length < line.length) {
                    line[length++] = b;
                } else {
                    tooLong = true;
                }
            }
        }
        if (!tooLong) {
            row(line, length, fields, kept, states);
        }
    }

    /**
     * Which rows {@link #rows} keeps: the rows whose local port is {@code localPort} (every row when it is
     * {@link #ANY_PORT}), and of those, when {@code ports} is not null, the rows whose local and remote ports are in
     * {@code ports} and whose connection is in {@code wanted}.
     */
    private record Kept(
            int localPort,
            @Nullable Set<Long> ports,
            @Nullable Set<Connection> wanted) {
        /** Every row of {@code localPort}. */
        static Kept port(int localPort) {
            return new Kept(localPort, null, null);
        }
    }

    /** Adds the row in {@code line[0, end)} to {@code states} when it is one {@code kept} names. */
    private static void row(byte[] line, int end, int[] fields, Kept kept, Map<Connection, Row> states) {
        int localPort = kept.localPort();
        Set<Long> ports = kept.ports();
        Set<Connection> wanted = kept.wanted();
        if (!split(line, 0, end, fields) || line[fields[1] - 1] != ':') {
            return;
        }
        try {
            int local = port(line, fields[2], fields[3]);
            int remotePort = port(line, fields[4], fields[5]);
            if ((localPort == ANY_PORT || local == localPort)
                    && (ports == null || ports.contains(ports(local, remotePort)))) {
                Connection connection = new Connection(
                        address(line, fields[2], fields[3]), local, address(line, fields[4], fields[5]), remotePort);
                if (wanted == null || wanted.contains(connection)) {
                    states.put(
                            connection,
                            new Row(hex(line, fields[6], fields[7]), sendQueue(line, fields[8], fields[9])));
                }
            }
        } catch (IllegalArgumentException | UnknownHostException malformed) {
            // Not a row this parser understands: skip it, as if the connection were not listed.
        }
    }

    /** Finds the first five space-separated fields of {@code table[start, end)}; false when there are fewer. */
    private static boolean split(byte[] table, int start, int end, int[] fields) {
        int at = start;
        for (int field = 0; field < 5; field++) {
            while (at < end && table[at] == ' ') {
                at++;
            }
            if (at == end) {
                return false;
            }
            fields[field * 2] = at;
            while (at < end && table[at] != ' ') {
                at++;
            }
            fields[field * 2 + 1] = at;
        }
        return true;
    }

    private static Set<Long> portPairs(Set<Connection> connections) {
        Set<Long> ports = new HashSet<>();
        for (Connection connection : connections) {
            ports.add(ports(connection.localPort(), connection.remotePort()));
        }
        return ports;
    }

    private static long ports(int localPort, int remotePort) {
        return ((long) localPort << 32) | remotePort;
    }

    /** The TCP state of {@code connection}, if the kernel lists it. */
    Optional<Integer> state(Connection connection) {
        Row row = states.get(connection);
        return row == null ? Optional.empty() : Optional.of(row.state());
    }

    /** The bytes written to {@code connection} that its peer has not acknowledged, if the kernel lists it. */
    OptionalLong sendQueue(Connection connection) {
        Row row = states.get(connection);
        return row == null || row.sendQueue() == UNKNOWN ? OptionalLong.empty() : OptionalLong.of(row.sendQueue());
    }

    /**
     * The {@code tx_queue} of the field {@code TX:RX} in {@code table[start, end)}, or {@link #UNKNOWN} when the field
     * is not such a pair (the row's state is still read).
     */
    private static long sendQueue(byte[] table, int start, int end) {
        int colon = start;
        while (colon < end && table[colon] != ':') {
            colon++;
        }
        if (colon == end || colon == start || colon - start > 8) {
            return UNKNOWN;
        }
        try {
            return Integer.toUnsignedLong(hex(table, start, colon));
        } catch (IllegalArgumentException malformed) {
            return UNKNOWN;
        }
    }

    /** The port of the field {@code HEX:PORT} in {@code table[start, end)}. */
    private static int port(byte[] table, int start, int end) {
        int colon = end - 1;
        while (colon >= start && table[colon] != ':') {
            colon--;
        }
        if (colon < start) {
            throw new IllegalArgumentException("no port");
        }
        return hex(table, colon + 1, end);
    }

    /** The hexadecimal number in {@code table[start, end)}. */
    private static int hex(byte[] table, int start, int end) {
        if (end <= start || end - start > 8) {
            throw new IllegalArgumentException("not a hexadecimal number of up to eight digits");
        }
        int value = 0;
        for (int i = start; i < end; i++) {
            int digit = Character.digit(table[i], 16);
            if (digit < 0) {
                throw new IllegalArgumentException("not a hexadecimal digit");
            }
            value = value << 4 | digit;
        }
        return value;
    }

    /**
     * The address of the field {@code HEX:PORT} in {@code table[start, end)}: the kernel prints each 32-bit word in
     * host byte order (little-endian on the platforms we run on), so every group of four bytes is reversed; an
     * IPv4-mapped IPv6 address comes back as the IPv4 address, as Java reports accepted sockets' ends.
     */
    private static InetAddress address(byte[] table, int start, int end) throws UnknownHostException {
        String endpoint = new String(table, start, end - start, StandardCharsets.ISO_8859_1);
        int colon = endpoint.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("no port");
        }
        String hex = endpoint.substring(0, colon);
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
