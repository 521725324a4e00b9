package grid.gateway.conformance.scenario;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays every scenario file under {@code src/test/resources/scenarios} against the gateway in process, and again
 * against the packaged jar as a separate process when the scenario needs nothing only the in-process gateway offers
 * (its manual clock, its seeded random source). Prints how many passed, failed and were skipped per spec section and
 * mode.
 */
class ConformanceTest {
    private static final Path SCENARIOS = Path.of("src/test/resources/scenarios");

    /** Per spec section and mode: passed, failed, skipped. */
    private static final Map<String, int[]> SUMMARY = new TreeMap<>();

    static Stream<Arguments> scenarios() throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(SCENARIOS)) {
            files = walk.filter(f -> f.toString().endsWith(".yaml"))
                    .sorted()
                    .map(SCENARIOS::relativize)
                    .toList();
        }
        List<Arguments> runs = new ArrayList<>();
        for (GatewayUnderTest.Mode mode : GatewayUnderTest.Mode.values()) {
            files.forEach(file -> runs.add(Arguments.of(mode, file)));
        }
        return runs.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("scenarios")
    void scenario(GatewayUnderTest.Mode mode, Path file, @TempDir Path dir) throws Exception {
        Scenario scenario;
        try {
            scenario = ScenarioLoader.load(SCENARIOS.resolve(file));
        } catch (RuntimeException unusable) {
            // counted under the section its folder names, such as 05-tags → 5
            counts(file.getName(0).toString().replaceFirst("^0*(\\d+).*", "$1"), mode)[1]++;
            throw unusable;
        }
        int[] counts = counts(scenario.spec(), mode);
        List<String> missing = scenario.requires().stream()
                .filter(r -> !mode.capabilities.contains(r))
                .toList();
        String unavailable = mode == GatewayUnderTest.Mode.JAR && missing.isEmpty() ? JarGateway.unavailable() : null;
        if (!missing.isEmpty() || unavailable != null) {
            counts[2]++;
        }
        assumeThat(missing).as("capabilities the " + mode + " gateway lacks").isEmpty();
        assumeThat(unavailable).as("the jar mode cannot run: " + unavailable).isNull();
        try {
            ScenarioRunner.run(scenario, mode, dir);
            counts[0]++;
        } catch (AssertionError | RuntimeException | InterruptedException e) {
            counts[1]++;
            throw e;
        }
    }

    private static synchronized int[] counts(String spec, GatewayUnderTest.Mode mode) {
        // in-process before jar within a section: the mode's ordinal sorts them
        return SUMMARY.computeIfAbsent(spec + "\u0000" + mode.ordinal() + mode, s -> new int[3]);
    }

    @AfterAll
    static void summary() {
        SUMMARY.forEach((key, c) -> {
            String[] parts = key.split("\u0000");
            System.out.printf(
                    "conformance §%s (%s): %d passed, %d failed, %d skipped%n",
                    parts[0], parts[1].substring(1), c[0], c[1], c[2]);
        });
    }
}
