package grid.gateway.conformance;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigException;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.app.config.RouteExplainSettings;
import grid.gateway.app.tls.TlsFactory;
import grid.gateway.enginesim.EngineSettings;
import grid.gateway.enginesim.EngineSimulator;
import grid.gateway.routing.grid.BackendCluster;
import grid.gateway.routing.time.Randomness;
import grid.gateway.routing.time.SystemMonotonicClock;
import io.helidon.common.tls.Tls;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The demo grid ({@code bin/demo}): one simulated engine per backend cluster of a serving config (by default
 * {@code etc/gateway-example.yaml}: east-a, east-b and west-a on 127.0.0.1:8001-8003), and the gateway in front of
 * them, all on loopback. Prints where to send requests; Ctrl-C stops everything. {@code --replicas N} runs
 * {@link ReplicaDemo} instead.
 */
public final class DemoGrid {
    /**
     * Helidon's loggers: at WARNING for the demo, so its start-up lines (one per listener and engine) do not bury the
     * demo's own. Held here: java.util.logging keeps loggers weakly, and a collected one forgets its level.
     */
    private static final Logger HELIDON = Logger.getLogger("io.helidon");

    private DemoGrid() {}

    /**
     * Starts the grid.
     *
     * @param args optionally the serving config to use; or {@code --replicas N}: N replicas sharing their prefix
     *     memory through a Redis, behind a random spread ({@link ReplicaDemo})
     */
    public static void main(String[] args) throws InterruptedException {
        HELIDON.setLevel(Level.WARNING);
        if (args.length == 2 && args[0].equals("--replicas")) {
            ReplicaDemo.run(Integer.parseInt(args[1]));
            return;
        }
        Path config = Path.of(args.length > 0 ? args[0] : "etc/gateway-example.yaml");
        GatewaySnapshot snapshot;
        try {
            snapshot = ConfigLoader.load(config);
        } catch (ConfigException invalid) {
            invalid.problems().forEach(System.err::println);
            System.exit(2);
            return;
        }
        List<AutoCloseable> running = new ArrayList<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeAll(running)));
        // An https cluster's simulated engine serves the gateway listener's certificate (server.tls): the demo's
        // certificate names 127.0.0.1, where every part of the demo runs (bin/demo --tls).
        Optional<Tls> engineTls = snapshot.config().tls().server().map(TlsFactory::listener);
        for (BackendCluster cluster : snapshot.config().grid().clusters()) {
            running.add(engine(cluster, engineTls));
        }
        GatewayServer gateway = GatewayServer.start(
                config, new GatewayRuntime(SystemMonotonicClock.INSTANCE, Randomness.INSTANCE, "127.0.0.1"));
        running.addFirst(gateway);
        // bin/demo --tls passes its CA's path in GRID_DEMO_CA; the operator's shell, which runs the lines printed
        // here, does not have that variable, so they name the file itself.
        Optional<String> ca = snapshot.config().tls().server().isPresent()
                ? Optional.of(Optional.ofNullable(System.getenv("GRID_DEMO_CA")).orElse("<the CA of server.tls>"))
                : Optional.empty();
        System.out.println(instructions(gateway.port(), gateway.adminPort(), ca));
        RouteExplainSettings explain = snapshot.config().server().routeExplain();
        if (explain.enabled()) {
            explain.tokenFile().ifPresent(file -> System.out.println(explainInstructions(gateway.adminPort(), file)));
        }
        new CountDownLatch(1).await();
    }

    private static EngineSimulator engine(BackendCluster cluster, Optional<Tls> tls) {
        URI url = cluster.url();
        EngineSettings.Builder settings = EngineSettings.builder()
                .host("127.0.0.1")
                .port(url.getPort())
                .name(cluster.id().name());
        if ("https".equals(url.getScheme())) {
            settings.tls(tls.orElseThrow(() -> new IllegalStateException("demo: cluster " + cluster.id()
                    + " is https; the demo serves it with server.tls, which is unset")));
        }
        cluster.models().forEach(settings::model);
        EngineSimulator engine = settings.start();
        System.out.println("engine " + cluster.id() + " (simulated) at " + engine.url());
        return engine;
    }

    /** What to try, for a client listener over TLS when {@code ca} (the CA file curl is to trust) is present. */
    static String instructions(int port, int adminPort, Optional<String> ca) {
        String base = (ca.isPresent() ? "https" : "http") + "://127.0.0.1:" + port;
        String curl = ca.map(file -> "curl --cacert '" + file + "'").orElse("curl");
        return """

                grid-gateway listening port=%1$d
                grid-gateway admin port=%2$d

                Try:
                  %4$s -s %3$s/v1/chat/completions -H 'Content-Type: application/json' \\
                    -d '{"model":"demo-model","messages":[{"role":"user","content":"Hello grid"}]}'
                  %4$s -sN %3$s/v1/responses -H 'Content-Type: application/json' \\
                    -d '{"model":"demo-model","input":"Hello","stream":true}'
                  %4$s -s %3$s/v1/responses/<the tagged resp_… id printed above>
                  curl -s http://127.0.0.1:%2$d/metrics | grep grid_route
                Ctrl-C stops the grid.
                """.formatted(port, adminPort, base, curl);
    }

    /** How to ask the admin listener's route explainer, with a token of {@code tokenFile}. */
    static String explainInstructions(int adminPort, Path tokenFile) {
        return """
                Why did a request go where it did (admin POST /route/explain, a token of %2$s):
                  curl -s -H "Authorization: Bearer $(head -1 %2$s)" 'http://127.0.0.1:%1$d/route/explain?path=/v1/chat/completions' \\
                    -d '{"model":"demo-model","messages":[{"role":"user","content":"Hello grid"}]}'
                """.formatted(adminPort, tokenFile);
    }

    static void closeAll(List<AutoCloseable> running) {
        for (AutoCloseable part : running) {
            try {
                part.close();
            } catch (Exception e) {
                System.err.println("demo: could not stop " + part + ": " + e.getMessage());
            }
        }
    }
}
