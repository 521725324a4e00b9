package grid.gateway.conformance.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads what a process holds (Linux and a JDK's {@code jcmd}): heap used after a full GC, live OS threads, open file
 * descriptors, and ESTABLISHED connections to the engine ports.
 *
 * <p>Stateless and thread-safe.
 */
final class ProcessProbe {
    private static final Pattern USED = Pattern.compile("used (\\d+)K");

    private ProcessProbe() {}

    /** One reading. */
    record Reading(long heapAfterGcBytes, int threads, int fileDescriptors, int upstreamConnections) {
        @Override
        public String toString() {
            return String.format(
                    "heap after GC %.1f MiB, threads %d, fds %d, upstream connections %d",
                    heapAfterGcBytes / 1048576.0, threads, fileDescriptors, upstreamConnections);
        }
    }

    static Reading read(long pid, Set<Integer> enginePorts) {
        jcmd(pid, "GC.run");
        String heap = jcmd(pid, "GC.heap_info");
        Matcher used = USED.matcher(heap);
        long heapBytes = used.find() ? Long.parseLong(used.group(1)) * 1024 : -1;
        return new Reading(heapBytes, threads(pid), fds(pid), TcpConnections.establishedTo(enginePorts));
    }

    private static int threads(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.substring("Threads:".length()).trim());
                }
            }
            return -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static int fds(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (int) fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    private static String jcmd(long pid, String command) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(List.of(jcmd.toString(), Long.toString(pid), command))
                    .redirectErrorStream(true)
                    .start();
            byte[] out = p.getInputStream().readAllBytes();
            p.waitFor(60, TimeUnit.SECONDS);
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("jcmd " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
