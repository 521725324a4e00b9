package grid.gateway.app.sharing;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * {@link SharingBenchmark#apply} in thread CPU time rather than JMH's wall time: on a machine shared with other work
 * the wall time of one thread swings with the load, its CPU time far less. Runs rounds of 8,192 applies (the whole
 * rotation) and prints the best and the median nanoseconds an entry.
 *
 * <p>Run: {@code java -cp app/target/benchmarks.jar grid.gateway.app.sharing.SharingCpuTime 512 30 [parts]} (keys,
 * rounds; {@code parts}: also {@code parse} and {@code applyKeys}, the two parts of {@code apply}).
 * It uses only {@code SharingBenchmark}'s public members, so the same file compiled against an earlier commit's
 * {@code benchmarks.jar} measures that commit in the same run (docs/performance-notes.md, "Applying faster").
 */
public final class SharingCpuTime {
    private static final int OPS = 8192;

    private SharingCpuTime() {}

    /** Arguments: keys an entry, rounds. */
    public static void main(String[] args) throws NoSuchMethodException {
        SharingBenchmark bench = new SharingBenchmark();
        bench.keys = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        bench.setUp();
        System.out.println(measure("apply", bench::apply, rounds));
        if (args.length > 2 && args[2].equals("parts")) {
            // By name, so that this file also compiles against a benchmarks.jar from before these two existed.
            for (String part : new String[] {"parse", "applyKeys"}) {
                Method method = SharingBenchmark.class.getMethod(part);
                System.out.println(measure(part, () -> invoke(method, bench), rounds));
            }
        }
    }

    private static boolean invoke(Method method, SharingBenchmark bench) {
        try {
            Object result = method.invoke(bench);
            return result instanceof Boolean applied ? applied : result != null;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String measure(String what, BooleanSupplier op, int rounds) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        double[] nanos = new double[rounds];
        long applied = 0;
        for (int r = 0; r < rounds; r++) {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < OPS; i++) {
                applied += op.getAsBoolean() ? 1 : 0;
            }
            nanos[r] = (threads.getCurrentThreadCpuTime() - start) / (double) OPS;
        }
        Arrays.sort(nanos);
        return String.format(
                "%s: best %.0f, median %.0f CPU ns an entry (%d applied)", what, nanos[0], nanos[rounds / 2], applied);
    }
}
