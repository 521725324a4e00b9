package grid.gateway.conformance.scenario;

import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays every scenario file under {@code src/test/resources/scenarios} against the gateway in process, and prints
 * how many passed, failed and were skipped per spec section.
 */
class ConformanceTest {
    private static final Path SCENARIOS = Path.of("src/test/resources/scenarios");

    /** Per spec section: passed, failed, skipped. */
    private static final Map<String, int[]> SUMMARY = new TreeMap<>();

    static Stream<Path> scenarios() throws IOException {
        try (Stream<Path> files = Files.walk(SCENARIOS)) {
            return files
                    .filter(f -> f.toString().endsWith(".yaml"))
                    .sorted()
                    .map(SCENARIOS::relativize)
                    .toList()
                    .stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void scenario(Path file, @TempDir Path dir) throws Exception {
        Scenario scenario;
        try {
            scenario = ScenarioLoader.load(SCENARIOS.resolve(file));
        } catch (RuntimeException unusable) {
            // counted under the section its folder names, such as 05-tags → 5
            counts(file.getName(0).toString().replaceFirst("^0*(\\d+).*", "$1"))[1]++;
            throw unusable;
        }
        int[] counts = counts(scenario.spec());
        boolean runnable = GatewayUnderTest.CAPABILITIES.containsAll(scenario.requires());
        if (!runnable) {
            counts[2]++;
        }
        assumeThat(runnable).as("capabilities " + scenario.requires()).isTrue();
        try {
            ScenarioRunner.run(scenario, dir);
            counts[0]++;
        } catch (AssertionError | RuntimeException | InterruptedException e) {
            counts[1]++;
            throw e;
        }
    }

    private static synchronized int[] counts(String spec) {
        return SUMMARY.computeIfAbsent(spec, s -> new int[3]);
    }

    @AfterAll
    static void summary() {
        SUMMARY.forEach((spec, c) ->
                System.out.printf("conformance §%s: %d passed, %d failed, %d skipped%n", spec, c[0], c[1], c[2]));
    }
}
