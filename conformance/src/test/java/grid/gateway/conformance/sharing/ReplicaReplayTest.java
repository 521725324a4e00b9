package grid.gateway.conformance.sharing;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.conformance.RedisProcess;
import grid.gateway.conformance.quality.SequentialReplay;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three gateway replicas behind a random spread, sharing through a real Redis, on the light-load sequential
 * multi-turn replay ({@link SequentialReplay}: each turn sent when the one before it was answered, to whichever
 * replica the spread draws): with {@code confirm_wait_ms} a confirmation is applied by every live peer before its
 * answer is relayed, so the conversation's next turn finds its prefix at any replica, however loaded the machine, and
 * the three keep the hit rate of one replica. Routing never waits on Redis: only the answer does, bounded.
 */
class ReplicaReplayTest {
    /** Threads that keep every core busy while they run (the machine's other work, as a test can make it). */
    private static final class CpuLoad implements AutoCloseable {
        static final CpuLoad NONE = new CpuLoad(0);

        private final List<Thread> spinners = new ArrayList<>();
        private volatile boolean running = true;

        private CpuLoad(int threads) {
            for (int i = 0; i < threads; i++) {
                spinners.add(Thread.ofPlatform().daemon().name("cpu-load-" + i).start(this::spin));
            }
        }

        static CpuLoad everyCore() {
            return new CpuLoad(Runtime.getRuntime().availableProcessors());
        }

        private void spin() {
            long sink = 0;
            while (running) {
                sink += System.identityHashCode(this) ^ sink;
            }
            if (sink == 42) {
                Thread.onSpinWait();
            }
        }

        @Override
        public void close() {
            running = false;
            for (Thread spinner : spinners) {
                try {
                    spinner.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Long enough that no peer on a loaded test machine misses it; it bounds only the answer, never routing. */
    private static final String SHARING = "        confirm_wait_ms: 5000\n";

    @TempDir
    Path dir;

    private RedisProcess redis;
    private final List<EngineSimulator> engines = new ArrayList<>();
    private final List<GatewayHarness> replicas = new ArrayList<>();

    @AfterEach
    void stop() {
        replicas.forEach(GatewayHarness::close);
        engines.forEach(EngineSimulator::close);
        if (redis != null) {
            redis.close();
        }
    }

    /**
     * Starts fresh engines, Redis and {@code count} replicas; returns the replay's hit rate through them, with the
     * machine's every core kept busy by other threads while it runs when {@code loaded}.
     */
    private double replay(int count, String sharing, boolean loaded) throws IOException {
        redis = RedisProcess.start();
        Map<String, EngineSimulator> byName = new LinkedHashMap<>();
        for (int i = 0; i < SequentialReplay.ENGINES; i++) {
            EngineSimulator engine = GatewayHarness.engineSettings(
                            "e" + i, EngineSettings.builder().instant().cacheBlocks(SequentialReplay.CACHE_BLOCKS))
                    .start();
            engines.add(engine);
            byName.put("e" + i, engine);
        }
        Path config = dir.resolve("replicas-" + count + ".yaml");
        Files.writeString(config, """
                server: {port: 0, admin_port: 0}
                gateway: {site: east}
                plugins:
                  grid_site_route:
                    load: {poll_interval_ms: 3600000, window_secs: 3600}
                    prefix_affinity:
                      sharing:
                        redis_url: %s
                        stream: replay
                        warm_start_ms: 10000
                %ssites:
                %s""".formatted(redis.url(), sharing, GatewayHarness.site("east", byName)));
        for (int r = 0; r < count; r++) {
            replicas.add(GatewayHarness.fromFile(config, r + 1));
        }
        // Every replica's first scrape round is over before the first request: each starts with the same view.
        replicas.forEach(replica -> replica.server.scrapeNow());
        SplittableRandom spread = new SplittableRandom(7);
        SequentialReplay.Result result = new SequentialReplay(96, settings -> settings)
                .replay(
                        step -> {},
                        turn -> replicas.get(spread.nextInt(count)).post(SequentialReplay.PATH, turn.body()));
        return result.hitRate();
    }

    @Test
    void threeReplicasSharingThroughRedis_keepOneReplicasHitRate() throws IOException {
        double one = replay(1, SHARING, false);
        stop();
        engines.clear();
        replicas.clear();

        double three = replay(3, SHARING, true);

        assertThat(three).isGreaterThanOrEqualTo(0.95 * one);
        double timedOut = replicas.getFirst().metric("grid_prefix_sharing_waits_total", "result=\"timed_out\"");
        assertThat(timedOut).as("every confirmation reached both peers in time").isZero();
        assertThat(replicas.getFirst().metric("grid_prefix_sharing_waits_total", "result=\"applied\""))
                .isPositive();
    }
}
