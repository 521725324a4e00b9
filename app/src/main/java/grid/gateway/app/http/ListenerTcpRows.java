package grid.gateway.app.http;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The kernel's TCP rows of a listener's port ({@link KernelTcpTable#readLocalPort}), read at most once for as long as
 * the callers accept an old enough reading, and shared by every connection of that port. A gateway holding thousands
 * of streams may have a hundred clients whose writes are blocked, and a look at each of them every quarter of the send
 * timeout would otherwise read the whole table each time: 25 ms of kernel time at 9,000 connections, where one reading
 * serves every look made within its age.
 *
 * <p>Thread-safe: one reading at a time; a caller that finds a reading fresh enough uses it.
 */
final class ListenerTcpRows {
    /** The kernel's tables, on the monotonic clock. */
    static final ListenerTcpRows KERNEL = new ListenerTcpRows(KernelTcpTable::readLocalPort, System::nanoTime);

    /** Reads the rows of one local port. */
    @FunctionalInterface
    interface Reader {
        /** The rows whose local port is {@code localPort}, read now. */
        KernelTcpTable read(int localPort) throws IOException;
    }

    private record Reading(long startedAt, KernelTcpTable rows) {}

    private final Reader reader;
    private final LongSupplier nanoTime;
    /** The latest reading of each local port; guarded by {@code this}. */
    private final Map<Integer, Reading> latest = new HashMap<>();

    ListenerTcpRows(Reader reader, LongSupplier nanoTime) {
        this.reader = requireNonNull(reader, "reader");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime");
    }

    /**
     * The rows of {@code localPort} as read at most {@code freshNanos} ago (a reading is as old as its start): the
     * latest reading when it is that fresh, else a new one.
     */
    synchronized KernelTcpTable rows(int localPort, long freshNanos) throws IOException {
        long now = nanoTime.getAsLong();
        Reading reading = latest.get(localPort);
        if (reading != null && now - reading.startedAt() <= freshNanos) {
            return reading.rows();
        }
        KernelTcpTable rows = reader.read(localPort);
        latest.put(localPort, new Reading(now, rows));
        return rows;
    }
}
