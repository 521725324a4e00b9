package grid.gateway.conformance.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The soak in short (15 s of traffic after a 1.5 s warm-up) on every build: the packaged gateway and three engine
 * processes, mixed traffic with injected faults, every request answered once as expected, resources back at their
 * baseline, and a graceful SIGTERM. Skipped, with the reason, when the gateway jar was not packaged or there is no
 * Linux {@code /proc}. The full run is {@code bench/soak.sh} (10 minutes by default).
 */
class SoakShortTest {
    /** Relative to the conformance module, where Maven runs tests. */
    private static final Path JAR = Path.of("../app/target/grid-gateway.jar");

    @TempDir
    Path dir;

    @Test
    void shortSoak_everyRequestAnsweredOnce_resourcesBackAtBaseline_gracefulSigterm() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no " + JAR.toAbsolutePath().normalize() + " (package the app first)");
        assumeTrue(TcpConnections.available(), "no /proc/net/tcp here");
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(text, true, StandardCharsets.UTF_8);

        boolean passed = new SoakRun(new SoakSettings(Duration.ofSeconds(15), 6, JAR, dir, 1), out).run();

        String report = text.toString(StandardCharsets.UTF_8);
        System.out.println(report);
        assertThat(passed).as(report).isTrue();
        assertThat(report)
                .contains("soak PASSED")
                .contains("fault-reset-mid-stream")
                .contains("client-abort");
    }
}
