package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The kernel's own table, on real sockets: two listeners at the same port of 127.0.0.1 and 127.0.0.2 (as two port-0
 * listeners may be given), each reached from the same client address and port (Linux gives a source port again for
 * another destination). Each accepted connection is told apart by its local address: one client's close is never
 * read as the other's.
 */
class KernelTcpTableSocketsTest {
    private static final int ESTABLISHED = 0x01;

    @Test
    void twoConnectionsDifferingOnlyInTheLocalAddress_eachReadAsItsOwn() throws Exception {
        InetAddress one = InetAddress.getByName("127.0.0.1");
        InetAddress two = InetAddress.getByName("127.0.0.2");
        try (ServerSocket first = new ServerSocket(0, 50, one);
                ServerSocket second = new ServerSocket(first.getLocalPort(), 50, two);
                Socket openClient = new Socket();
                Socket closingClient = new Socket()) {
            openClient.setReuseAddress(true);
            openClient.bind(new InetSocketAddress(one, 0));
            closingClient.setReuseAddress(true);
            closingClient.bind(openClient.getLocalSocketAddress());
            openClient.connect(first.getLocalSocketAddress());
            closingClient.connect(second.getLocalSocketAddress());
            try (Socket open = first.accept();
                    Socket closed = second.accept()) {
                KernelTcpTable.Connection openRow = connection(open);
                KernelTcpTable.Connection closedRow = connection(closed);
                assertThat(openRow.remote()).isEqualTo(closedRow.remote());
                assertThat(openRow.remotePort()).isEqualTo(closedRow.remotePort());
                assertThat(openRow.localPort()).isEqualTo(closedRow.localPort());

                closingClient.close();
                GatewayHarness.await("the closing client's FIN", () -> state(closedRow) == KernelTcpTable.CLOSE_WAIT);

                KernelTcpTable both =
                        KernelTcpTable.read(new java.util.HashSet<>(java.util.List.of(openRow, closedRow)));
                KernelTcpTable port = KernelTcpTable.readLocalPort(openRow.localPort());
                assertThat(both.state(openRow)).as("the open connection").contains(ESTABLISHED);
                assertThat(both.state(closedRow)).contains(KernelTcpTable.CLOSE_WAIT);
                assertThat(port.state(openRow))
                        .as("the open connection, among its port's rows")
                        .contains(ESTABLISHED);
                assertThat(port.state(closedRow)).contains(KernelTcpTable.CLOSE_WAIT);
            }
        }
    }

    private static KernelTcpTable.Connection connection(Socket accepted) {
        return KernelTcpTable.Connection.of((InetSocketAddress) accepted.getLocalSocketAddress(), (InetSocketAddress)
                accepted.getRemoteSocketAddress());
    }

    private static int state(KernelTcpTable.Connection row) {
        try {
            return KernelTcpTable.read(Set.of(row)).state(row).orElse(-1);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
