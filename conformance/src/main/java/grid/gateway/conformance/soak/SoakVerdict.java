package grid.gateway.conformance.soak;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The soak's checks and their outcome: each check adds a line, passed or failed, and {@link #print} says whether
 * all passed.
 *
 * <p>Not thread-safe.
 */
final class SoakVerdict {
    private static final long HEAP_SLACK_BYTES = 8L * 1024 * 1024;
    private final int clients;
    private final List<String> lines = new ArrayList<>();
    private boolean passed = true;

    SoakVerdict(int clients) {
        this.clients = clients;
    }

    void traffic(Tally tally, boolean idle) {
        check(
                tally.sentCount() > 0 && tally.sentCount() == tally.endedCount(),
                "every request ended exactly once (" + tally.sentCount() + " sent, " + tally.endedCount() + " ended)");
        check(tally.hungCount() == 0, "no request hung (" + tally.hungCount() + ")");
        check(
                tally.unexpectedCount() == 0,
                "every end as its kind expects (" + tally.unexpectedCount() + " unexpected)");
        check(idle, "grid_requests_in_flight back to 0");
    }

    void resources(ProcessProbe.Reading baseline, ProcessProbe.Reading end) {
        long heapBound = baseline.heapAfterGcBytes() + baseline.heapAfterGcBytes() / 4 + HEAP_SLACK_BYTES;
        check(
                end.heapAfterGcBytes() > 0 && end.heapAfterGcBytes() <= heapBound,
                String.format(
                        "heap after GC %.1f MiB <= %.1f MiB (baseline x 1.25 + 8 MiB)",
                        end.heapAfterGcBytes() / 1048576.0, heapBound / 1048576.0));
        check(
                end.threads() <= baseline.threads() + 4,
                "live threads " + end.threads() + " <= " + (baseline.threads() + 4) + " (baseline + 4)");
        check(
                end.fileDescriptors() <= baseline.fileDescriptors() + 8,
                "open fds " + end.fileDescriptors() + " <= " + (baseline.fileDescriptors() + 8) + " (baseline + 8)");
        check(
                end.upstreamConnections() <= baseline.upstreamConnections() + clients,
                "upstream connections " + end.upstreamConnections() + " <= "
                        + (baseline.upstreamConnections() + clients) + " (baseline + clients)");
    }

    void shutdown(List<String> problems) {
        check(
                problems.isEmpty(),
                "SIGTERM: streams in flight completed, gateway exited within its grace"
                        + (problems.isEmpty() ? "" : " " + problems));
    }

    /** Prints each check and the verdict; true when all passed. */
    boolean print(PrintStream out) {
        lines.forEach(out::println);
        out.println(passed ? "soak PASSED" : "soak FAILED");
        return passed;
    }

    private void check(boolean ok, String what) {
        lines.add((ok ? "  ok    " : "  FAIL  ") + what);
        passed &= ok;
    }
}
