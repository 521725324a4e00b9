package grid.gateway.app.bench.streams;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The long-streams load (bench/streams/run.sh): holds N streamed Chat Completions open at once against one path
 * (directly at the engines, through nginx, or through the gateway), each reopened when it ends, and measures the
 * proxy while they run.
 *
 * <pre>
 *   idle        RSS (and heap after a full GC) of the proxy processes before any stream
 *   slow        --slow slow readers of a fast stream, opened first: until they stall, each fills the socket buffers
 *               on its path, megabytes a reader that a proxy relays and the fast engine writes, which would otherwise
 *               fall into the window's CPU
 *   ramp        N streams opened at --open-rate a second
 *   settle      --settle-s seconds
 *   window      --window-s seconds: the proxy's CPU seconds and the events every stream received; --probes new
 *               streams, evenly spaced, each timed from its request to its first event and then closed
 *   readings    RSS and heap after GC with N open
 * </pre>
 *
 * <p>Prints one line of {@code key=value} pairs (and appends it to --out): the counts of streams by ending (complete,
 * lost, duplicated, error) over the whole run, the probes' first-event p50/p99, CPU seconds per 1,000 events, and RSS
 * and heap per open stream above idle.
 */
public final class StreamLoad {
    private final LoadOptions options;
    private final Tally tally = new Tally();
    private final Set<SseExchange> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger streaming = new AtomicInteger();
    private final AtomicInteger slowStreaming = new AtomicInteger();
    private final List<String> firstErrors = new ArrayList<>();
    private volatile boolean stopped;

    private StreamLoad(LoadOptions options) {
        this.options = options;
    }

    /** Runs one load as the arguments say (see {@link LoadOptions}). */
    public static void main(String[] args) throws Exception {
        LoadOptions options = LoadOptions.parse(args);
        String line = new StreamLoad(options).run();
        System.out.println(line);
        if (options.out() != null) {
            Files.writeString(
                    Path.of(options.out()),
                    line + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
    }

    private String run() throws Exception {
        List<Long> pids = options.pids();
        warmUp();
        long rssIdle = pids.isEmpty() ? 0 : ProcStats.rssKib(pids);
        long heapIdle = ProcStats.heapAfterGcKib(options.jvmPids());
        awaitReadings(".idle");
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < options.slow(); i++) {
            threads.add(Thread.ofVirtual().start(() -> slowReader(options.slowTarget())));
        }
        long gapNanos = (long) (1e9 / options.openRate());
        for (int i = 0; i < options.n(); i++) {
            InetSocketAddress target =
                    options.targets().get(i % options.targets().size());
            threads.add(Thread.ofVirtual().start(() -> keepOpen(target, options.request(options.model()))));
            LockSupport.parkNanos(start + (i + 1) * gapNanos - System.nanoTime());
        }
        sleepSeconds(options.settleSeconds());
        int openAtWindow = streaming.get() + slowStreaming.get();
        double cpu0 = pids.isEmpty() ? 0 : ProcStats.cpuSeconds(pids);
        long events0 = tally.events();
        long window0 = System.nanoTime();
        long[] probes = probe(window0);
        long windowNanos = System.nanoTime() - window0;
        double cpu1 = pids.isEmpty() ? 0 : ProcStats.cpuSeconds(pids);
        long events = tally.events() - events0;
        int openAfterWindow = streaming.get() + slowStreaming.get();
        int slowOpen = slowStreaming.get();
        long rss = pids.isEmpty() ? 0 : ProcStats.rssKib(pids);
        long heap = ProcStats.heapAfterGcKib(options.jvmPids());
        awaitReadings("");
        stop(threads);
        return report(new Readings(
                openAtWindow,
                openAfterWindow,
                slowOpen,
                rssIdle,
                rss,
                heapIdle,
                heap,
                cpu1 - cpu0,
                events,
                windowNanos,
                probes));
    }

    /**
     * Runs the proxy warm before anything is measured, so that its idle readings and the window's CPU are a warm
     * process's (a JVM compiles its hot code in the first seconds of load): {@code --warmup-s} seconds of
     * {@code --warm-streams} streams (at most N), all closed again, then two seconds for the proxy to let them go. A
     * client that opens none waits as long, so that the clients of one run ramp together.
     */
    private void warmUp() throws InterruptedException {
        if (options.warmupSeconds() <= 0) {
            return;
        }
        StreamLoad warm = new StreamLoad(options);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < Math.min(options.warmStreams(), options.n()); i++) {
            InetSocketAddress target =
                    options.targets().get(i % options.targets().size());
            threads.add(Thread.ofVirtual().start(() -> warm.keepOpen(target, options.request(options.model()))));
        }
        sleepSeconds(options.warmupSeconds());
        warm.stop(threads);
        sleepSeconds(2);
    }

    /**
     * One stream after another on one slot, until the run stops: each on a new connection, or with --keep-alive on the
     * connection the last one completed on. An exchange closes its connection unless it keeps it, and a closed socket
     * cannot connect again, so a connection that is not open is replaced.
     */
    private void keepOpen(InetSocketAddress target, byte[] request) {
        ClientConnection connection = new ClientConnection();
        while (!stopped) {
            if (!connection.isOpen()) {
                connection = new ClientConnection();
            }
            SseExchange exchange = new SseExchange(connection, options.keepAlive(), tally, ReadPace.FAST, streaming);
            open.add(exchange);
            SseExchange.Result result = exchange.run(target, request, false, () -> stopped);
            open.remove(exchange);
            tally.ended(result.ending());
            if (result.ending() == SseExchange.Ending.ERROR) {
                noteError(result.detail());
                sleepSeconds(0.2); // a failing path is retried, not hammered
            } else if (result.ending() == SseExchange.Ending.LOST || result.ending() == SseExchange.Ending.DUPLICATED) {
                noteError(result.ending() + " " + result.detail());
            }
        }
    }

    /** One slow reader of a fast stream; it is not reopened. */
    private void slowReader(InetSocketAddress target) {
        SseExchange exchange = new SseExchange(tally, ReadPace.slow(options.slowBytesPerSecond()), slowStreaming);
        open.add(exchange);
        SseExchange.Result result = exchange.run(target, options.request(options.slowModel()), false, () -> stopped);
        open.remove(exchange);
        if (result.ending() != SseExchange.Ending.STOPPED) {
            noteError("slow reader: " + result.ending() + " " + result.detail());
        }
    }

    /**
     * The window's probes, evenly spaced over it; each a new stream timed to its first event. Each starts on time on a
     * thread of its own whether or not the ones before it have their first event, so a stall delays every probe that
     * falls in it, as it delays every client.
     */
    private long[] probe(long window0) throws InterruptedException {
        int count = options.probes();
        long windowNanos = (long) (options.windowSeconds() * 1e9);
        long[] firstEvent = new long[count];
        List<Thread> probes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            LockSupport.parkNanos(window0 + i * windowNanos / Math.max(1, count) - System.nanoTime());
            int index = i;
            probes.add(Thread.ofVirtual().start(() -> {
                SseExchange probe = new SseExchange(new Tally(), ReadPace.FAST, new AtomicInteger());
                SseExchange.Result result = probe.run(
                        options.targets().get(index % options.targets().size()),
                        options.request(options.model()),
                        true,
                        () -> false);
                firstEvent[index] = result.firstEventNanos();
                if (result.firstEventNanos() < 0) {
                    noteError("probe: " + result.detail());
                }
            }));
        }
        for (Thread probe : probes) {
            probe.join();
        }
        LockSupport.parkNanos(window0 + windowNanos - System.nanoTime());
        return firstEvent;
    }

    /**
     * With several load clients, only the first measures the proxy, idle before the ramp and loaded after its window
     * (its probes may outlast the others' windows, and reading the heap takes a full collection of each JVM): it says
     * when each reading is taken ({@code --readings-done}), and the others wait for it ({@code --await-readings}),
     * before opening their streams and before closing them, or the readings would count a proxy holding part of N.
     */
    private void awaitReadings(String suffix) throws IOException, InterruptedException {
        if (options.readingsDone() != null) {
            Files.writeString(Path.of(options.readingsDone() + suffix), "taken\n", StandardCharsets.UTF_8);
        }
        if (options.awaitReadings() != null) {
            Path taken = Path.of(options.awaitReadings() + suffix);
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (!Files.exists(taken) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        }
    }

    private void stop(List<Thread> threads) throws InterruptedException {
        stopped = true;
        for (SseExchange exchange : open) {
            exchange.abort();
        }
        for (Thread thread : threads) {
            thread.join(10_000);
        }
    }

    private synchronized void noteError(String detail) {
        if (firstErrors.size() < 5) {
            firstErrors.add(detail);
        }
    }

    /** What the run measured, before it is reported. */
    private record Readings(
            int openAtWindow,
            int openAfterWindow,
            int slowOpen,
            long rssIdleKib,
            long rssKib,
            long heapIdleKib,
            long heapKib,
            double cpuSeconds,
            long events,
            long windowNanos,
            long[] probeNanos) {}

    private String report(Readings r) {
        long[] probes =
                Arrays.stream(r.probeNanos()).filter(t -> t >= 0).sorted().toArray();
        int n = options.n() + options.slow();
        StringBuilder line = new StringBuilder();
        add(line, "label", options.label());
        add(line, "n", n);
        add(line, "open_at_window", r.openAtWindow());
        add(line, "open_after_window", r.openAfterWindow());
        add(line, "slow_open", r.slowOpen());
        add(line, "complete", tally.count(SseExchange.Ending.COMPLETE));
        add(line, "lost", tally.count(SseExchange.Ending.LOST));
        add(line, "duplicated", tally.count(SseExchange.Ending.DUPLICATED));
        add(line, "errors", tally.count(SseExchange.Ending.ERROR) + (r.probeNanos().length - probes.length));
        add(line, "events", r.events());
        add(line, "window_s", String.format("%.3f", r.windowNanos() / 1e9));
        add(line, "cpu_s", String.format("%.2f", r.cpuSeconds()));
        add(line, "rss_idle_kib", r.rssIdleKib());
        add(line, "rss_kib", r.rssKib());
        add(line, "heap_idle_kib", r.heapIdleKib());
        add(line, "heap_kib", r.heapKib());
        add(line, "probes", probes.length);
        add(line, "first_event_p50_ms", String.format("%.2f", percentile(probes, 0.50) / 1e6));
        add(line, "first_event_p99_ms", String.format("%.2f", percentile(probes, 0.99) / 1e6));
        add(line, "first_errors", String.join(" | ", firstErrors).replace(' ', '_'));
        return line.toString().trim();
    }

    private static void add(StringBuilder line, String key, Object value) {
        line.append(key).append('=').append(value).append(' ');
    }

    /** The nearest-rank percentile of sorted {@code values}; -1 when there are none. */
    static double percentile(long[] values, double p) {
        if (values.length == 0) {
            return -1;
        }
        int rank = (int) Math.ceil(p * values.length);
        return values[Math.max(0, Math.min(values.length - 1, rank - 1))];
    }

    private static void sleepSeconds(double seconds) {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        for (long left = until - System.nanoTime(); left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
