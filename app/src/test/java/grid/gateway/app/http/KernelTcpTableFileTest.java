package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedWriter;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel's TCP table read from a file: a line at a time, so what a read holds does not grow with the host's
 * connections (the table lists every one of them, not only the gateway's).
 */
class KernelTcpTableFileTest {
    private static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt" + "   uid  timeout inode\n";
    /** Rows of other ports: about 15 MB of table. */
    private static final int OTHER_ROWS = 100_000;
    /** Far below the table's size, far above the buffers of a read. */
    private static final long ALLOCATION_BOUND = 1 << 20;

    @TempDir
    Path dir;

    private static String row(int sl, int localPort, int remotePort, int state, int sendQueue) {
        return String.format(
                "%4d: 0100007F:%04X 0100007F:%04X %02X %08X:00000000 00:00000000 00000000  1000        0 %d 1"
                        + " 0000000000000000 20 4 30 10 -1\n",
                sl, localPort, remotePort, state, sendQueue, 100_000 + sl);
    }

    @Test
    void readLocalPort_largeTable_keepsTheListenersRowsAndHoldsOnlyALine() throws Exception {
        Path tcp4 = dir.resolve("tcp");
        try (BufferedWriter out = Files.newBufferedWriter(tcp4, StandardCharsets.ISO_8859_1)) {
            out.write(HEADER);
            out.write(row(0, 8080, 40000, 0x01, 0x123));
            out.write("    x: " + "0".repeat(KernelTcpTable.LINE_LIMIT) + "\n"); // no row: skipped
            for (int sl = 1; sl <= OTHER_ROWS; sl++) {
                out.write(row(sl, 8081, 1024 + sl % 60_000, 0x01, 0));
            }
            out.write(row(OTHER_ROWS + 1, 8080, 40001, 0x08, 0).stripTrailing()); // last line, no newline
        }
        assertThat(Files.size(tcp4)).isGreaterThan(10L << 20);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().threadId();
        KernelTcpTable.readLocalPort(8080, tcp4, dir.resolve("absent")); // warm: classes, code paths

        long before = threads.getThreadAllocatedBytes(thread);
        KernelTcpTable table = KernelTcpTable.readLocalPort(8080, tcp4, dir.resolve("absent"));
        long allocated = threads.getThreadAllocatedBytes(thread) - before;

        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        assertThat(table.state(
                        new KernelTcpTable.Connection(InetAddress.getByName("127.0.0.1"), 8080, loopback, 40000)))
                .contains(0x01);
        assertThat(table.sendQueue(
                        new KernelTcpTable.Connection(InetAddress.getByName("127.0.0.1"), 8080, loopback, 40000)))
                .hasValue(0x123);
        assertThat(table.state(
                        new KernelTcpTable.Connection(InetAddress.getByName("127.0.0.1"), 8080, loopback, 40001)))
                .contains(KernelTcpTable.CLOSE_WAIT);
        assertThat(table.state(new KernelTcpTable.Connection(InetAddress.getByName("127.0.0.1"), 8081, loopback, 1025)))
                .isEmpty();
        assertThat(allocated)
                .as("bytes allocated reading a %d-byte table", Files.size(tcp4))
                .isLessThan(ALLOCATION_BOUND);
    }
}
