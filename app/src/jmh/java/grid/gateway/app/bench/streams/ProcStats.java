package grid.gateway.app.bench.streams;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Readings of other processes on this machine, from {@code /proc} and the JDK's {@code jcmd}/{@code jstat}: CPU time,
 * resident memory, and a JVM's heap in use right after a full collection.
 *
 * <p>Thread-safe (stateless).
 */
final class ProcStats {
    /** Clock ticks a second ({@code getconf CLK_TCK}); 100 on every Linux this runs on. */
    private static final double TICKS_PER_SECOND = 100.0;
    /**
     * "used 254000K" (G1, Parallel, Serial), "used 248M" (ZGC) or "24576K used" (Shenandoah): the heap in use, as
     * {@code GC.heap_info} prints it.
     */
    private static final Pattern USED = Pattern.compile("\\bused (\\d+)([KMG])\\b|\\b(\\d+)([KMG]) used\\b");

    private ProcStats() {}

    /** User plus system CPU seconds of every process in {@code pids}. */
    static double cpuSeconds(List<Long> pids) throws IOException {
        long ticks = 0;
        for (long pid : pids) {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        }
        return ticks / TICKS_PER_SECOND;
    }

    /** Resident memory of every process in {@code pids}, in KiB ({@code VmRSS}). */
    static long rssKib(List<Long> pids) throws IOException {
        long kib = 0;
        for (long pid : pids) {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    kib += Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        }
        return kib;
    }

    /** The heap in use of every JVM in {@code pids} after a full collection of each, summed, KiB; 0 for none. */
    static long heapAfterGcKib(List<Long> pids) throws IOException, InterruptedException {
        long kib = 0;
        for (long pid : pids) {
            kib += heapAfterGcKib(pid);
        }
        return kib;
    }

    /**
     * The heap in use of JVM {@code pid} after a full collection ({@code jcmd GC.run}, then the first {@code used}
     * figure of {@code jcmd GC.heap_info}, which every collector prints), KiB.
     */
    private static long heapAfterGcKib(long pid) throws IOException, InterruptedException {
        run("jcmd", Long.toString(pid), "GC.run");
        for (String line : run("jcmd", Long.toString(pid), "GC.heap_info")) {
            Matcher used = USED.matcher(line);
            if (used.find()) {
                int at = used.group(1) != null ? 1 : 3;
                long value = Long.parseLong(used.group(at));
                return switch (used.group(at + 1)) {
                    case "K" -> value;
                    case "M" -> value * 1024;
                    default -> value * 1024 * 1024;
                };
            }
        }
        throw new IOException("jcmd GC.heap_info printed no heap in use for " + pid);
    }

    private static List<String> run(String tool, String... args) throws IOException, InterruptedException {
        Path bin = Path.of(System.getProperty("java.home"), "bin", tool);
        List<String> command = new java.util.ArrayList<>(List.of(bin.toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(tool + " failed: " + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8).lines().toList();
    }
}
