package grid.gateway.app.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ListenerTcpRowsTest {
    private static final String HEADER =
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";
    // 127.0.0.1:8080 (0x1F90) <- 127.0.0.1:40000 (0x9C40) and <- 127.0.0.1:40001; 127.0.0.1:8081 (0x1F91) <- :40000
    private static final String TABLE = HEADER
            + "   0: 0100007F:1F90 0100007F:9C40 01 00001000:00000000 00:00000000 00000000  1000 0 1\n"
            + "   1: 0100007F:1F90 0100007F:9C41 01 00000200:00000000 00:00000000 00000000  1000 0 2\n"
            + "   2: 0100007F:1F91 0100007F:9C40 01 00000030:00000000 00:00000000 00000000  1000 0 3\n";

    private final AtomicLong now = new AtomicLong(1_000);
    private final List<Integer> reads = new ArrayList<>();
    private final ListenerTcpRows rows = new ListenerTcpRows(
            port -> {
                reads.add(port);
                return KernelTcpTable.parseLocalPort(TABLE, port);
            },
            now::get);

    private static KernelTcpTable.Connection from(int localPort, int remotePort) throws Exception {
        return new KernelTcpTable.Connection(
                InetAddress.getByName("127.0.0.1"), localPort, InetAddress.getByName("127.0.0.1"), remotePort);
    }

    @Test
    void parseLocalPort_keepsEveryConnectionOfThatPortOnly() throws Exception {
        KernelTcpTable table = KernelTcpTable.parseLocalPort(TABLE, 8080);
        assertThat(table.sendQueue(from(8080, 40000))).hasValue(0x1000);
        assertThat(table.sendQueue(from(8080, 40001))).hasValue(0x200);
        assertThat(table.sendQueue(from(8081, 40000)))
                .as("another listener's connection")
                .isEmpty();
    }

    @Test
    void looksWithinTheFreshness_shareOneReading() throws Exception {
        long fresh = Duration.ofSeconds(2).toNanos();
        assertThat(rows.rows(8080, fresh).sendQueue(from(8080, 40000))).hasValue(0x1000);
        now.addAndGet(fresh);
        assertThat(rows.rows(8080, fresh).sendQueue(from(8080, 40001)))
                .as("another connection of the port, from the same reading")
                .hasValue(0x200);
        assertThat(reads).containsExactly(8080);
    }

    @Test
    void aReadingOlderThanAsked_isReadAgain() throws Exception {
        long fresh = Duration.ofSeconds(2).toNanos();
        rows.rows(8080, fresh);
        now.addAndGet(fresh + 1);
        rows.rows(8080, fresh);
        now.incrementAndGet();
        rows.rows(8080, 0);
        assertThat(reads).containsExactly(8080, 8080, 8080);
    }

    @Test
    void eachPort_hasItsOwnReading() throws Exception {
        long fresh = Duration.ofSeconds(2).toNanos();
        assertThat(rows.rows(8080, fresh).sendQueue(from(8081, 40000))).isEmpty();
        assertThat(rows.rows(8081, fresh).sendQueue(from(8081, 40000))).hasValue(0x30);
        assertThat(reads).containsExactly(8080, 8081);
    }
}
