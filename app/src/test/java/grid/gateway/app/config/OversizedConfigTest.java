package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.CapturedLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configs far larger in what they say than in bytes, or with far more problems than a log line holds: YAML aliases
 * make a key or a list stand for more text than the file, and a file of the wrong kind has a problem on every line.
 * Each is refused with problems of bounded length, and a reload's refusal is one log line of bounded length.
 */
class OversizedConfigTest {
    /** A problem line's length bound: a key path, a value cut at 80 characters, what was expected. */
    private static final int LINE = 400;

    @TempDir
    Path dir;

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void tearDown() {
        scheduler.shutdownNow();
    }

    @Test
    void load_aKeyThatIsAListOfAliases_namedByItsKindNotWrittenOut() {
        // 500 aliases of a 10,000-character string: 5 MB of text as a key, from 12 KB of file.
        String yaml = "anchor: &a \"" + "x".repeat(10_000) + "\"\n? [" + "*a, ".repeat(499) + "*a]\n: 1\n" + MINIMAL;

        List<String> problems = TestConfigs.problems(dir, yaml);

        assertThat(problems).allSatisfy(line -> assertThat(line.length()).isLessThan(LINE));
        assertThat(problems)
                .contains("a list: unknown key (expected: one of server, gateway, sites, plugins,"
                        + " development, tracing)");
    }

    @Test
    void load_aLongKey_cutAsAValueIs() {
        // An explicit key: an implicit one may have at most 1024 characters.
        String yaml = "? " + "k".repeat(100_000) + "\n: 1\n" + MINIMAL;

        List<String> problems = TestConfigs.problems(dir, yaml);

        assertThat(problems)
                .containsExactly("\"" + "k".repeat(Problems.MAX_SHOWN_CHARS)
                        + "…\": unknown key (expected: one of server, gateway, sites, plugins, development, tracing)");
    }

    @Test
    void reload_withTensOfThousandsOfProblems_oneBoundedLineNamingTheFirstAndHowManyMore() {
        Path config = write(dir, "config.yaml", MINIMAL);
        List<List<String>> refused = new ArrayList<>();
        ConfigWatcher watcher = new ConfigWatcher(config, snapshot -> {}, recording(refused), scheduler);
        // The same model listed 30,000 times through an alias: a problem for every entry after the first.
        write(config, MINIMAL.replace("models: [demo-model]", "models: [&m demo-model" + ", *m".repeat(30_000) + "]"));

        try (CapturedLog log = CapturedLog.named("grid.gateway.config")) {
            watcher.pollNow();

            assertThat(refused).hasSize(1);
            assertThat(refused.getFirst()).hasSize(30_000);
            String line = log.messages().getFirst();
            assertThat(log.messages()).hasSize(1);
            assertThat(line.length()).isLessThan(ConfigWatcher.LOGGED_PROBLEMS * LINE);
            assertThat(line)
                    .startsWith("config change in " + config + " refused, the config in force stays: "
                            + "sites[0].clusters[0].models[1]: \"demo-model\" (expected: a model not already listed); ")
                    .endsWith("; and 29980 more (grid-gateway --check-config " + config + " prints every one)");
        }
    }

    private static ReloadListener recording(List<List<String>> refused) {
        return new ReloadListener() {
            @Override
            public void applied() {}

            @Override
            public void refused(List<String> problems) {
                refused.add(problems);
            }
        };
    }
}
