package grid.gateway.conformance.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * The processes of a soak, all on loopback: three engine simulators (east-a, east-b at site east, west-a at site
 * west; from this JVM's class path) and the packaged gateway in front of them ({@code java -jar}, 256 MiB heap),
 * with a tag key, a 16 KiB body limit, a 5 s first-byte timeout and a 10 s shutdown grace. {@link #close()} stops
 * every process it started.
 *
 * <p>Not thread-safe.
 */
final class SoakGrid implements AutoCloseable {
    private static final Duration START = Duration.ofSeconds(60);
    private final Map<String, Integer> enginePorts = new LinkedHashMap<>();
    private final List<ChildProcess> engines = new ArrayList<>();
    private ChildProcess gateway;
    private int port;
    private int adminPort;

    SoakGrid(Path dir, Path gatewayJar) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        try {
            for (String name : List.of("east-a", "east-b", "west-a")) {
                ChildProcess.PortLine line = ChildProcess.PortLine.of("engine-simulator \\S+ listening port=(\\d+)");
                ChildProcess engine = new ChildProcess(
                        name,
                        List.of(
                                java,
                                "-Xmx128m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                "grid.gateway.enginesim.EngineSimulatorMain",
                                "--port",
                                "0",
                                "--name",
                                name,
                                "--model",
                                Traffic.MODEL,
                                "--slots",
                                "8",
                                "--decode-tps",
                                "400",
                                // The soak's traffic deletes stored responses and uses conversations (vLLM has
                                // neither; the simulator adds them on request).
                                "--conversations",
                                "--delete-stored-responses"),
                        List.of(line));
                engines.add(engine);
                enginePorts.put(name, engine.port(line, START));
            }
            Path config = writeConfig(dir);
            ChildProcess.PortLine listening = ChildProcess.PortLine.of("grid-gateway listening port=(\\d+)");
            ChildProcess.PortLine admin = ChildProcess.PortLine.of("grid-gateway admin port=(\\d+)");
            gateway = new ChildProcess(
                    "gateway",
                    List.of(java, "-Xmx256m", "-jar", gatewayJar.toString(), "--config", config.toString()),
                    List.of(listening, admin));
            port = gateway.port(listening, START);
            adminPort = gateway.port(admin, START);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private Path writeConfig(Path dir) {
        StringBuilder yaml =
                new StringBuilder("""
                server:
                  port: 0
                  admin_port: 0
                  max_body_bytes: %d
                  shutdown_grace_ms: 10000
                gateway:
                  site: east
                  tag_key_path: tag-key
                  upstream:
                    first_byte_timeout_ms: %d
                plugins:
                  grid_site_route:
                    load: {poll_interval_ms: 250, window_secs: 2}
                sites:
                """.formatted(Traffic.MAX_BODY_BYTES, Traffic.FIRST_BYTE_TIMEOUT.toMillis()));
        for (String site : List.of("east", "west")) {
            yaml.append("  - name: ").append(site).append("\n    clusters:\n");
            enginePorts.forEach((name, p) -> {
                if (name.startsWith(site)) {
                    yaml.append("      - {name: ")
                            .append(name)
                            .append(", url: \"http://127.0.0.1:")
                            .append(p)
                            .append("\", models: [")
                            .append(Traffic.MODEL)
                            .append("]}\n");
                }
            });
        }
        try {
            Files.createDirectories(dir);
            Files.writeString(
                    dir.resolve("tag-key"),
                    "soak-key-" + Long.toHexString(new java.security.SecureRandom().nextLong()) + "-0123456789\n");
            Path config = dir.resolve("gateway.yaml");
            Files.writeString(config, yaml);
            return config;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return port;
    }

    int adminPort() {
        return adminPort;
    }

    long gatewayPid() {
        return gateway.pid();
    }

    java.util.Set<Integer> enginePorts() {
        return java.util.Set.copyOf(enginePorts.values());
    }

    String gatewayOutput() {
        return gateway.output();
    }

    /** SIGTERM to the gateway; its exit code, or empty if it had to be killed after {@code wait}. */
    OptionalInt terminateGateway(Duration wait) {
        return gateway.terminate(wait);
    }

    @Override
    public void close() {
        if (gateway != null) {
            gateway.close();
        }
        engines.forEach(ChildProcess::close);
    }
}
