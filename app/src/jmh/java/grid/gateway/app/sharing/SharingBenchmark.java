package grid.gateway.app.sharing;

import static java.nio.charset.StandardCharsets.UTF_8;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.BlockKeys;
import grid.gateway.routing.prefix.PrefixAffinitySettings;
import grid.gateway.routing.prefix.PrefixMemory;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What prefix sharing costs per request, without Redis (its load is measured with redis-benchmark, see
 * BENCHMARKS.md):
 *
 * <ul>
 *   <li>{@code publish}: on the request thread, after the answer's status: stamp the entry and offer it to the bounded
 *       queue (the publishing thread's take is included, so the queue stays empty).
 *   <li>{@code encode}: on the publishing thread: the entry's stream fields (base64 of the keys).
 *   <li>{@code apply}: on the reader thread: parse a peer's entry (its fields as bytes, as Redis returns them) and
 *       apply it to a full 16,384-entry LRU; the entries rotate over 8,192 × keys distinct keys, more than the LRU
 *       holds, so keys are new and evict. {@code parse} and {@code applyKeys} are its two parts.
 *   <li>{@code applyTurnFull} / {@code applyTurnTail}: the same for a multi-turn workload (8 turns a conversation,
 *       each adding keys ÷ 8 blocks, so the last turn has {@code keys}): every entry with its whole prompt (before)
 *       or with only what the publisher found new (after: the publisher's {@code news} over the same turns).
 *   <li>{@code news}: on the publishing thread: find what of a turn's entry is new ({@code RecentlyShared}).
 * </ul>
 *
 * <p>Run: {@code bin/bench SharingBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 4, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SharingBenchmark {
    private static final ClusterId CLUSTER = new ClusterId(new SiteName("east"), "east-a");
    private static final int ROTATION = 8192;

    /** Block keys a request carries: 8 (a 2 KiB prompt), 40 (10 KiB), 512 (128 KiB). */
    @Param({"8", "40", "512"})
    public int keys;

    private SharingPublisher publisher;
    private BlockKeys request;
    private SharedEntry entry;
    private Map<byte[], byte[]>[] peerEntries;
    private BlockKeys[] peerKeys;
    private PrefixMemory memory;
    private int next;
    private Map<byte[], byte[]>[] turnsFull;
    private Map<byte[], byte[]>[] turnsTail;
    private SharedEntry[] turnEntries;
    private SharingPublisher newsPublisher;
    private int nextTurn;

    @Setup
    @SuppressWarnings("unchecked")
    public void setUp() {
        SplittableRandom random = new SplittableRandom(19);
        long[] raw = random.longs(keys).toArray();
        request = BlockKeys.copyOf(raw, raw.length);
        publisher = new SharingPublisher(
                "00ff",
                "bench",
                null,
                new SharingPublisher.Context(null, System::currentTimeMillis, () -> 1000, () -> 150_000),
                1024);
        entry = SharedEntry.of("00ff", CLUSTER, true, System.currentTimeMillis(), raw);
        PrefixAffinitySettings settings = PrefixAffinitySettings.defaults();
        memory = new PrefixMemory(settings, SystemMonotonicClock.INSTANCE, random.nextLong());
        memory.reconfigure(Set.of(CLUSTER), settings);
        long[] fill = random.longs(settings.capacity()).toArray();
        memory.confirm(CLUSTER, BlockKeys.copyOf(fill, fill.length));
        peerEntries = new Map[ROTATION];
        peerKeys = new BlockKeys[ROTATION];
        for (int i = 0; i < ROTATION; i++) {
            long[] fresh = random.longs(keys).toArray();
            peerEntries[i] = raw(SharedEntry.of("0abc", CLUSTER, true, System.currentTimeMillis(), fresh)
                    .fields());
            peerKeys[i] = BlockKeys.copyOf(fresh, fresh.length);
        }
        turns(random);
    }

    /**
     * {@value #ROTATION} entries: conversations of 8 turns, taken turn by turn, a turn every 10 s of entry time;
     * the tails are what the publisher's {@code news} keeps of them (TTL/4 = 150 s refresh).
     */
    @SuppressWarnings("unchecked")
    private void turns(SplittableRandom random) {
        int step = Math.max(1, keys / 8);
        int conversations = ROTATION / 8;
        long[][] prompts = new long[conversations][];
        for (int c = 0; c < conversations; c++) {
            prompts[c] = random.longs(step * 8L).toArray();
        }
        turnsFull = new Map[ROTATION];
        turnsTail = new Map[ROTATION];
        turnEntries = new SharedEntry[ROTATION];
        newsPublisher = new SharingPublisher(
                "00ff", "bench", null, new SharingPublisher.Context(null, () -> 0, () -> 1000, () -> 150_000), 1024);
        SharingPublisher counting = new SharingPublisher(
                "00ff", "bench", null, new SharingPublisher.Context(null, () -> 0, () -> 1000, () -> 150_000), 1024);
        long full = 0;
        long sent = 0;
        int i = 0;
        for (int turn = 1; turn <= 8; turn++) {
            for (int c = 0; c < conversations; c++, i++) {
                long[] prompt = Arrays.copyOf(prompts[c], step * turn);
                SharedEntry entry = SharedEntry.of("0abc", CLUSTER, true, turn * 10_000L + c, prompt);
                turnEntries[i] = entry;
                turnsFull[i] = raw(entry.fields());
                SharedEntry tail = counting.news(entry);
                turnsTail[i] = tail == null ? null : raw(tail.fields());
                full += prompt.length;
                sent += tail == null ? 0 : tail.keys().length;
            }
        }
        System.out.printf(
                "%nmulti-turn workload, %d keys at the last turn: %.1f keys an entry in full, %.1f as the new tail%n",
                keys, (double) full / ROTATION, (double) sent / ROTATION);
    }

    @Benchmark
    public boolean applyTurnFull() {
        return applyFields(turnsFull[nextTurn++ & (ROTATION - 1)]);
    }

    @Benchmark
    public boolean applyTurnTail() {
        Map<byte[], byte[]> fields = turnsTail[nextTurn++ & (ROTATION - 1)];
        return fields != null && applyFields(fields);
    }

    @Benchmark
    public SharedEntry news() {
        return newsPublisher.news(turnEntries[nextTurn++ & (ROTATION - 1)]);
    }

    /** The fields as the reader gets them from Redis: bytes. */
    private static Map<byte[], byte[]> raw(Map<String, String> fields) {
        Map<byte[], byte[]> raw = new LinkedHashMap<>();
        fields.forEach((name, value) -> raw.put(name.getBytes(UTF_8), value.getBytes(UTF_8)));
        return raw;
    }

    private boolean applyFields(Map<byte[], byte[]> fields) {
        SharedEntry parsed = SharedEntry.parseRaw(fields).orElseThrow();
        return memory.applyPeer(
                CLUSTER, BlockKeys.copyOf(parsed.keys(), parsed.keys().length), parsed.confirmed(), 1_000_000);
    }

    @Benchmark
    public SharedEntry publish() {
        publisher.learned(CLUSTER, request, true);
        return publisher.next();
    }

    @Benchmark
    public Map<String, String> encode() {
        return entry.fields();
    }

    @Benchmark
    public boolean apply() {
        return applyFields(peerEntries[next++ & (ROTATION - 1)]);
    }

    /** {@code apply}'s first part: parse and validate the entry, decode its keys. */
    @Benchmark
    public SharedEntry parse() {
        return SharedEntry.parseRaw(peerEntries[next++ & (ROTATION - 1)]).orElseThrow();
    }

    /** {@code apply}'s second part: the same keys, already decoded, into the LRU. */
    @Benchmark
    public boolean applyKeys() {
        return memory.applyPeer(CLUSTER, peerKeys[next++ & (ROTATION - 1)], true, 1_000_000);
    }
}
