package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.helidon.webserver.CloseConnectionException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The probe's rules, against kernel tables given as text (no socket, no sweeper thread). */
class ClientDisconnectProbeTest {
    private static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt" + "   uid  timeout inode\n";
    // 127.0.0.1:8080 (0x1F90) <- 127.0.0.1:40000 (0x9C40)
    private static final String ESTABLISHED =
            HEADER + "   0: 0100007F:1F90 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000 0 1\n";
    private static final String CLOSE_WAIT = ESTABLISHED.replace(" 01 ", " 08 ");
    private static final String EMPTY = HEADER;

    private final ClientDisconnectProbe probe = new ClientDisconnectProbe(false);
    private final KernelTcpTable.Connection client = KernelTcpTable.Connection.of(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000));

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    private void sweep(String table) {
        probe.sweep(KernelTcpTable.parse(table));
    }

    @Test
    void sweep_established_nothingHappens() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        sweep(ESTABLISHED);
        assertThat(watch.clientGone()).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        watch.close();
    }

    @Test
    void sweep_closeWait_interruptsAndCloseEndsTheConnection() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        sweep(ESTABLISHED);
        sweep(CLOSE_WAIT);
        assertThat(watch.clientGone()).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
        assertThatThrownBy(watch::close).isInstanceOf(CloseConnectionException.class);
        // The watch's own interrupt is cleared, so nothing after it is disturbed.
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void sweep_listedThenMissingTwice_gone_missingOnce_not() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        sweep(ESTABLISHED);
        sweep(EMPTY);
        assertThat(watch.clientGone()).as("one miss may be a torn read").isFalse();
        sweep(ESTABLISHED);
        sweep(EMPTY);
        assertThat(watch.clientGone()).isFalse();
        sweep(EMPTY);
        assertThat(watch.clientGone()).isTrue();
        assertThatThrownBy(watch::close).isInstanceOf(CloseConnectionException.class);
    }

    @Test
    void sweep_neverListed_noEvidenceNoAction() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        for (int i = 0; i < 5; i++) {
            sweep(EMPTY);
        }
        assertThat(watch.clientGone()).isFalse();
        watch.close();
    }

    @Test
    void sweep_afterClose_neverInterrupts() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        watch.close();
        sweep(CLOSE_WAIT);
        assertThat(watch.clientGone()).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void sweep_otherConnectionsClosing_leaveThisOneAlone() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        // Same client port to another local port, and another client port to the listener: both CLOSE_WAIT.
        sweep(HEADER + "   0: 0100007F:1F91 0100007F:9C40 08 0 0 0 0 0 1\n"
                + "   1: 0100007F:1F90 0100007F:9C41 08 0 0 0 0 0 2\n");
        assertThat(watch.clientGone()).isFalse();
        watch.close();
    }

    @Test
    void parse_ipv6AndMappedIpv4Rows_keyedByAddressAndPorts() throws Exception {
        KernelTcpTable table = KernelTcpTable.parse(HEADER
                + "   0: 00000000000000000000000001000000:1F90 00000000000000000000000001000000:9C40 08 0 0 0\n"
                + "   1: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000200007F:9C41 01 0 0 0\n"
                + "garbage line\n   2: zz:1 yy:2 01\n");
        assertThat(table.state(new KernelTcpTable.Connection(
                        InetAddress.getByName("::1"), 8080, InetAddress.getByName("::1"), 40000)))
                .contains(8);
        assertThat(table.state(new KernelTcpTable.Connection(
                        InetAddress.getByName("127.0.0.1"), 8080, InetAddress.getByName("127.0.0.2"), 40001)))
                .contains(1);
    }

    @Test
    void answerStarts_theRequestIsWatchedNoMore_itsWatchStillCloses() {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        sweep(ESTABLISHED);
        probe.answerStarts();
        sweep(CLOSE_WAIT);
        assertThat(watch.clientGone())
                .as("a write notices the gone client from now on")
                .isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        watch.close();
    }

    @Test
    void answerStarts_onAnotherThread_leavesThisRequestWatched() throws Exception {
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        Thread other = Thread.ofVirtual().start(probe::answerStarts);
        other.join();
        sweep(CLOSE_WAIT);
        assertThat(watch.clientGone()).isTrue();
        assertThatThrownBy(watch::close).isInstanceOf(CloseConnectionException.class);
    }

    @Test
    void parseWanted_keepsTheWantedRowsOnly_otherRowsOfTheSamePortsToo() throws Exception {
        KernelTcpTable.Connection other = new KernelTcpTable.Connection(
                InetAddress.getByName("127.0.0.1"), 8080, InetAddress.getByName("127.0.0.2"), 40000);
        String table = HEADER
                + "   0: 0100007F:1F90 0100007F:9C40 08 0 0 0\n"
                + "   1: 0100007F:1F90 0200007F:9C40 01 0 0 0\n"
                + "   2: 0100007F:1F90 0100007F:9C41 01 0 0 0\n"
                + "   3: 0100007F:1F91 0100007F:9C40 01 0 0 0\n";
        KernelTcpTable wanted = KernelTcpTable.parse(table, java.util.Set.of(client));
        assertThat(wanted.state(client)).contains(8);
        assertThat(wanted.state(other))
                .as("same ports, another address: not wanted")
                .isEmpty();
        assertThat(KernelTcpTable.parse(table).state(other)).contains(1);
        assertThat(KernelTcpTable.parse(table, java.util.Set.of()).state(client))
                .isEmpty();
    }

    @Test
    void sweep_theSameClientAddressAndPortAtTheSamePortOfAnotherLocalAddress_leavesThisOneAlone() throws Exception {
        // 127.0.0.1:40000 reaches 127.0.0.1:8080 (this listener) and 127.0.0.2:8080 (another), and closed the other.
        String otherClosed = "   0: 0200007F:1F90 0100007F:9C40 08 0 0 0\n";
        String thisOpen = "   1: 0100007F:1F90 0100007F:9C40 01 0 0 0\n";
        ClientDisconnectProbe.Watch watch = probe.watch(client);
        for (String table : new String[] {HEADER + otherClosed + thisOpen, HEADER + thisOpen + otherClosed}) {
            sweep(table);
            assertThat(watch.clientGone()).as(table).isFalse();
            assertThat(KernelTcpTable.parse(table).state(client)).as(table).contains(1);
            assertThat(KernelTcpTable.parse(table, java.util.Set.of(client)).state(client))
                    .as(table)
                    .contains(1);
        }
        watch.close();

        KernelTcpTable.Connection other =
                new KernelTcpTable.Connection(InetAddress.getByName("127.0.0.2"), 8080, client.remote(), 40000);
        ClientDisconnectProbe.Watch otherWatch = probe.watch(other);
        sweep(HEADER + thisOpen + otherClosed);
        assertThat(otherWatch.clientGone()).isTrue();
        assertThatThrownBy(otherWatch::close).isInstanceOf(CloseConnectionException.class);
    }
}
