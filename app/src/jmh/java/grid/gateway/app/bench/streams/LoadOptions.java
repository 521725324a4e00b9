package grid.gateway.app.bench.streams;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The command line of {@link StreamLoad}:
 *
 * <pre>
 *   --targets HOST:PORT[,HOST:PORT…]  where streams go, in turn (direct: every engine; a proxy: its one port)
 *   --n N                            streams held open at once
 *   --open-rate R                    streams opened a second during the ramp (default 500)
 *   --warmup-s S --warm-streams W    seconds of W streams (at most N) before the idle readings (20, 500)
 *   --settle-s S --window-s W        seconds after the ramp before the window, and the window's length (10, 30)
 *   --probes P                       new streams timed to their first event during the window (default 200)
 *   --model M --max-tokens T         the streams' model and token limit (the engine's answer length caps it)
 *   --slow K --slow-model M --slow-bps B   K slow readers of model M, reading B bytes a second (0, bench-fast, 1)
 *   --slow-target HOST:PORT          where slow readers go (the first target)
 *   --pids P[,P…] --jvm-pid P[,P…]   processes whose CPU and RSS are measured; the JVMs whose heap is (none)
 *   --label L --out FILE             the result line's label, and a file the line is appended to
 *   --readings-done FILE             (the client that measures) creates FILE.idle and FILE once its idle and its
 *                                    loaded readings are taken
 *   --await-readings FILE            (every other client) opens its streams once FILE.idle exists and closes them
 *                                    once FILE does (each wait at most 5 minutes), so that the proxy is read idle,
 *                                    and then with all N open
 *   --keep-alive true|false          a stream that ends leaves its connection to the next one (false: a new
 *                                    connection each; probes and slow readers always open their own)
 * </pre>
 *
 * <p>Thread-safe (immutable).
 */
record LoadOptions(
        List<InetSocketAddress> targets,
        InetSocketAddress slowTarget,
        int n,
        double openRate,
        double warmupSeconds,
        int warmStreams,
        double settleSeconds,
        double windowSeconds,
        int probes,
        String model,
        int maxTokens,
        int slow,
        String slowModel,
        long slowBytesPerSecond,
        List<Long> pids,
        List<Long> jvmPids,
        String label,
        @Nullable String out,
        @Nullable String readingsDone,
        @Nullable String awaitReadings,
        boolean keepAlive) {

    static LoadOptions parse(String[] args) {
        List<InetSocketAddress> targets = new ArrayList<>();
        InetSocketAddress slowTarget = null;
        List<Long> pids = new ArrayList<>();
        int n = 100;
        double openRate = 500;
        double warmup = 20;
        int warmStreams = 500;
        double settle = 10;
        double window = 30;
        int probes = 200;
        String model = "bench-stream";
        int maxTokens = 100_000;
        int slow = 0;
        String slowModel = "bench-fast";
        long slowBps = 1;
        List<Long> jvmPids = new ArrayList<>();
        String label = "run";
        String out = null;
        String readingsDone = null;
        String awaitReadings = null;
        boolean keepAlive = false;
        for (int i = 0; i + 1 < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--targets" -> {
                    for (String target : value.split(",")) {
                        targets.add(address(target));
                    }
                }
                case "--slow-target" -> slowTarget = address(value);
                case "--n" -> n = Integer.parseInt(value);
                case "--open-rate" -> openRate = Double.parseDouble(value);
                case "--warmup-s" -> warmup = Double.parseDouble(value);
                case "--warm-streams" -> warmStreams = Integer.parseInt(value);
                case "--settle-s" -> settle = Double.parseDouble(value);
                case "--window-s" -> window = Double.parseDouble(value);
                case "--probes" -> probes = Integer.parseInt(value);
                case "--model" -> model = value;
                case "--max-tokens" -> maxTokens = Integer.parseInt(value);
                case "--slow" -> slow = Integer.parseInt(value);
                case "--slow-model" -> slowModel = value;
                case "--slow-bps" -> slowBps = Long.parseLong(value);
                case "--pids" -> pids.addAll(pidList(value));
                case "--jvm-pid" -> jvmPids.addAll(pidList(value));
                case "--label" -> label = value;
                case "--out" -> out = value;
                case "--readings-done" -> readingsDone = value;
                case "--await-readings" -> awaitReadings = value;
                case "--keep-alive" -> keepAlive = Boolean.parseBoolean(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("--targets is required");
        }
        return new LoadOptions(
                targets,
                slowTarget == null ? targets.get(0) : slowTarget,
                n,
                openRate,
                warmup,
                warmStreams,
                settle,
                window,
                probes,
                model,
                maxTokens,
                slow,
                slowModel,
                slowBps,
                List.copyOf(pids),
                List.copyOf(jvmPids),
                label,
                out,
                readingsDone,
                awaitReadings,
                keepAlive);
    }

    /** Process ids, comma-separated; "0" and blanks are none (a client that measures nothing). */
    private static List<Long> pidList(String value) {
        List<Long> pids = new ArrayList<>();
        for (String field : value.split(",")) {
            long pid = field.isBlank() ? 0 : Long.parseLong(field.trim());
            if (pid > 0) {
                pids.add(pid);
            }
        }
        return pids;
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** The request of one stream of {@code streamModel}, head and body, to this load's targets. */
    byte[] request(String streamModel) {
        String body = "{\"model\":\"" + streamModel + "\",\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"max_tokens\":" + maxTokens
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Tell a long story.\"}]}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST /v1/chat/completions HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
                + "Accept: text/event-stream\r\nContent-Length: " + bytes.length + "\r\n\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[headBytes.length + bytes.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(bytes, 0, all, headBytes.length, bytes.length);
        return all;
    }
}
