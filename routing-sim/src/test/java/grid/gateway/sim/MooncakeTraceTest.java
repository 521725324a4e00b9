package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MooncakeTraceTest {
    @TempDir
    Path dir;

    @Test
    void read_sharedLeadingIds_shareEngineBlocksAndGatewayKeysExactlyThatFar() throws IOException {
        Trace trace = MooncakeTrace.read(
                write(
                        "{\"timestamp\": 0, \"input_length\": 1200, \"output_length\": 10, \"hash_ids\": [1, 2, 3]}",
                        "{\"timestamp\": 500, \"input_length\": 1100, \"output_length\": 5, \"hash_ids\": [1, 2, 4]}",
                        "{\"timestamp\": 1000, \"input_length\": 300, \"output_length\": 5, \"hash_ids\": [9]}"),
                "mooncake",
                1);

        assertThat(trace.workload()).isEqualTo("mooncake");
        assertThat(trace.replayed()).isTrue();
        Turn first = turn(trace, 0);
        Turn second = turn(trace, 1);
        // Two shared 512-token blocks are 64 engine blocks; the 65th differs.
        assertThat(Arrays.copyOf(first.blocks(), 64)).isEqualTo(Arrays.copyOf(second.blocks(), 64));
        assertThat(first.blocks()[64]).isNotEqualTo(second.blocks()[64]);
        // Prompt then answer, full 16-token blocks only.
        assertThat(first.blocks()).hasSize((1200 + 10) / 16);
        assertThat(first.promptTokens()).isEqualTo(1200);
        assertThat(second.idealUncachedTokens()).isEqualTo(1100 - 1024);
        // The gateway's 256-byte keys: 1,024 shared tokens are 4,096 shared bytes of content (16 keys and more).
        long shared =
                commonPrefix(first.keys().keys().toArray(), second.keys().keys().toArray());
        assertThat(shared)
                .isGreaterThanOrEqualTo(16)
                .isLessThan(first.keys().keys().size());
        assertThat(commonPrefix(
                        first.keys().keys().toArray(),
                        turn(trace, 2).keys().keys().toArray()))
                .isLessThanOrEqualTo(1);
    }

    @Test
    void read_arrivals_inUnitsOfTheMeanGap() throws IOException {
        Trace trace = MooncakeTrace.read(
                write(
                        "{\"timestamp\": 100, \"input_length\": 20, \"output_length\": 1, \"hash_ids\": [1]}",
                        "{\"timestamp\": 100, \"input_length\": 20, \"output_length\": 1, \"hash_ids\": [2]}",
                        "{\"timestamp\": 400, \"input_length\": 20, \"output_length\": 1, \"hash_ids\": [3]}"),
                "t",
                1);

        // Mean gap (400 - 100) / 2 = 150 ms: starts 0, 0 and 2.
        assertThat(trace.sessions().stream().map(Session::start).toList()).containsExactly(0.0, 0.0, 2.0);
        assertThat(trace.meanTurns()).isCloseTo(1, within(1e-12));
    }

    @Test
    void read_lastBlockCut_keysAPrefixOfTheFullBlock() throws IOException {
        Trace trace = MooncakeTrace.read(
                write(
                        "{\"timestamp\": 0, \"input_length\": 512, \"output_length\": 1, \"hash_ids\": [7]}",
                        "{\"timestamp\": 1, \"input_length\": 300, \"output_length\": 1, \"hash_ids\": [7]}"),
                "t",
                1);

        // 300 tokens: 18 full engine blocks, all the same as the full block's first 18.
        Turn cut = turn(trace, 1);
        assertThat(Arrays.copyOf(turn(trace, 0).blocks(), 18)).isEqualTo(Arrays.copyOf(cut.blocks(), 18));
        assertThat(cut.idealUncachedTokens()).isEqualTo(300 - 18 * 16);
    }

    @Test
    void read_otherFields_ignored() throws IOException {
        Trace trace = MooncakeTrace.read(
                write("{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 2, \"hash_ids\": [1],"
                        + " \"session_id\": \"abc\", \"extra\": {\"x\": [1]}}"),
                "t",
                1);

        assertThat(trace.requests()).isEqualTo(1);
    }

    @Test
    void read_missingOrMistypedField_failsWithItsLine() throws IOException {
        Path missing = write(
                "{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 2, \"hash_ids\": [1]}",
                "{\"timestamp\": 0, \"output_length\": 2, \"hash_ids\": [1]}");
        Path mistyped = write("{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 2, \"hash_ids\": [\"a\"]}");
        Path broken = write("{\"timestamp\": 0, ");

        assertThatThrownBy(() -> MooncakeTrace.read(missing, "t", 1))
                .hasMessageContaining(":2")
                .hasMessageContaining("input_length");
        assertThatThrownBy(() -> MooncakeTrace.read(mistyped, "t", 1)).hasMessageContaining("hash_ids[0]");
        assertThatThrownBy(() -> MooncakeTrace.read(broken, "t", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void read_scale_keepsTheFirstRequestsButAtLeastTwenty() throws IOException {
        String[] lines = new String[50];
        for (int i = 0; i < lines.length; i++) {
            lines[i] =
                    "{\"timestamp\": " + i + ", \"input_length\": 40, \"output_length\": 2, \"hash_ids\": [" + i + "]}";
        }
        Path file = write(lines);

        assertThat(MooncakeTrace.read(file, "t", 0.1).requests()).isEqualTo(20);
        assertThat(MooncakeTrace.read(file, "t", 0.6).requests()).isEqualTo(30);
    }

    @Test
    void study_replayedTrace_runsBesideSyntheticWorkloadsWithTraceSizedCaches() throws IOException {
        String[] lines = new String[40];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = "{\"timestamp\": " + i * 100 + ", \"input_length\": 2000, \"output_length\": 20, \"hash_ids\": ["
                    + i % 3 + ", " + (100 + i) + ", " + (200 + i) + ", " + (300 + i) + "]}";
        }
        Study study = new Study(7, 0.1, FailedAnswers.none());
        study.add(MooncakeTrace.read(write(lines), "mooncake", 1));

        List<RunResult> results = study.run(
                "mooncake",
                SimGrid.fast(),
                Study.Selection.of(List.of(PolicyKind.GRID_SITE_ROUTE, PolicyKind.ORACLE), new double[] {0.5}),
                line -> {});

        assertThat(results).hasSize(2).allSatisfy(r -> assertThat(r.workload()).isEqualTo("mooncake"));
        assertThat(results.getFirst().requests()).isPositive();
        assertThat(study.gridFor(SimGrid.fast(), study.trace("mooncake")).clusters())
                .allSatisfy(c -> assertThat(c.cacheTokens()).isEqualTo(SimGrid.TRACE_CACHE_TOKENS));
    }

    @Test
    void study_promptsBeyondTheKeyersReach_reportedCachedOverIt_predictedMatchesWhatTheKeysCanShow()
            throws IOException {
        // 40 requests sharing a 39,424-token prefix (77 blocks of 512) with a 576-token tail of their own: past the
        // keyer's 512 keys (32,768 tokens), so the engine reports cached tokens the gateway can never predict. At 5%
        // of the grid's capacity each request arrives after the earlier ones were answered and finds their prefix.
        Study study = new Study(7, 0.1, FailedAnswers.none());
        study.add(MooncakeTrace.read(write(sharedPrefixTrace(40_000, 77)), "long", 1));
        study.add(MooncakeTrace.read(write(sharedPrefixTrace(4_000, 7)), "short", 1));
        var selection = Study.Selection.of(List.of(PolicyKind.GRID_SITE_ROUTE), new double[] {0.05});

        RunResult beyond =
                study.run("long", SimGrid.fast(), selection, line -> {}).getFirst();
        RunResult within =
                study.run("short", SimGrid.fast(), selection, line -> {}).getFirst();

        assertThat(beyond.reportedCached()).isGreaterThan(beyond.reachableCached());
        assertThat(beyond.reachableCached()).isLessThanOrEqualTo((long) beyond.requests() * 512 * 64);
        assertThat((double) beyond.predictedCached() / beyond.reachableCached()).isBetween(0.9, 1.1);
        assertThat((double) beyond.predictedCached() / beyond.reportedCached()).isLessThan(0.9);
        assertThat(within.reachableCached())
                .as("a prompt under 512 keys: every reported token is within reach")
                .isEqualTo(within.reportedCached())
                .isPositive();
    }

    /** 40 requests of {@code tokens} sharing their first {@code shared} 512-token blocks, one a second. */
    private static String[] sharedPrefixTrace(int tokens, int shared) {
        int blocks = (tokens + 511) / 512;
        String[] lines = new String[40];
        for (int i = 0; i < lines.length; i++) {
            StringBuilder ids = new StringBuilder();
            for (int b = 0; b < blocks; b++) {
                ids.append(b == 0 ? "" : ", ").append(b < shared ? b : 1_000 * (i + 1) + b);
            }
            lines[i] = "{\"timestamp\": " + i * 1000 + ", \"input_length\": " + tokens
                    + ", \"output_length\": 20, \"hash_ids\": [" + ids + "]}";
        }
        return lines;
    }

    private Path write(String... lines) throws IOException {
        Path file = Files.createTempFile(dir, "trace", ".jsonl");
        Files.write(file, List.of(lines));
        return file;
    }

    private static Turn turn(Trace trace, int i) {
        return trace.sessions().get(i).turns().getFirst();
    }

    private static long commonPrefix(long[] a, long[] b) {
        int n = 0;
        while (n < Math.min(a.length, b.length) && a[n] == b[n]) {
            n++;
        }
        return n;
    }
}
