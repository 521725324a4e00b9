package grid.gateway.conformance;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.time.Randomness;
import grid.gateway.routing.time.SystemMonotonicClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code bin/demo --replicas N}: a Redis, the simulated engines of {@code etc/gateway-replicas.yaml}, N gateway
 * replicas sharing their prefix memory through that Redis, and a random spread on port 8080 in front of them (a
 * Service in miniature), all on loopback. Ctrl-C stops everything.
 */
final class ReplicaDemo {
    static final Path CONFIG = Path.of("etc/gateway-replicas.yaml");
    static final int SPREAD_PORT = 8080;

    private ReplicaDemo() {}

    static void run(int replicas) throws InterruptedException {
        List<AutoCloseable> running = new ArrayList<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> DemoGrid.closeAll(running)));
        RedisProcess redis = RedisProcess.start();
        running.add(redis);
        System.out.println("redis-server at " + redis.url());
        Path config = demoConfig(CONFIG, redis.url());
        GatewaySnapshot snapshot = ConfigLoader.load(config);
        for (BackendCluster cluster : snapshot.config().grid().clusters()) {
            running.add(engine(cluster));
        }
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            GatewayServer gateway = GatewayServer.start(
                    config, new GatewayRuntime(SystemMonotonicClock.INSTANCE, Randomness.INSTANCE, "127.0.0.1"));
            running.addFirst(gateway);
            ports.add(gateway.port());
            System.out.println("replica " + (i + 1) + ": client port " + gateway.port() + ", admin port "
                    + gateway.adminPort() + " (curl -s http://127.0.0.1:" + gateway.adminPort()
                    + "/metrics | grep -E 'grid_prefix_sharing|outcome=\"hit\"')");
        }
        RandomSpread spread = RandomSpread.start(SPREAD_PORT, ports, Randomness.INSTANCE);
        running.addFirst(spread);
        System.out.println("""

                random spread over %d replicas listening port=%d (each connection to a replica drawn at random)

                Send the same long conversation a few times: every turn lands on a random replica, and from the
                second on each is a prefix hit, whichever replica it lands on (grid_prefix_sharing_applied_total
                counts what each replica learned from the others):
                  for i in 1 2 3 4 5; do curl -s http://127.0.0.1:%d/v1/chat/completions \\
                    -H 'Content-Type: application/json' -d "{\\"model\\":\\"demo-model\\",\\"messages\\":\
                [{\\"role\\":\\"user\\",\\"content\\":\\"$(printf 'a long shared history %%.0s' $(seq 80))\\"}]}" \
                    >/dev/null; done
                Ctrl-C stops the grid.
                """.formatted(replicas, spread.port(), spread.port()));
        new CountDownLatch(1).await();
    }

    /** {@code example} on the demo's Redis (no password) with listeners on free ports, in a temporary file. */
    static Path demoConfig(Path example, String redisUrl) {
        try {
            String text = Files.readString(example)
                    .replaceAll("redis_url: \\S+", "redis_url: " + redisUrl)
                    .replaceAll("(?m)^\\s*password_file: .*\\n", "");
            Path file = Files.createTempFile("grid-demo-replicas-", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(file, "server:\n  port: 0\n  admin_port: 0\n" + text);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static EngineSimulator engine(BackendCluster cluster) {
        EngineSettings.Builder settings = EngineSettings.builder()
                .host("127.0.0.1")
                .port(cluster.url().getPort())
                .name(cluster.id().name());
        cluster.models().forEach(settings::model);
        EngineSimulator engine = settings.start();
        System.out.println("engine " + cluster.id() + " (simulated) at " + engine.url());
        return engine;
    }
}
