package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.KEY_ONE;
import static grid.gateway.app.config.TestConfigs.KEY_TWO;
import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.withGateway;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The schedule's polls load a change only once two in a row read it alike, so that a file written in place is never
 * applied half-written. Each poll is run by hand ({@code pollScheduled}, what the scheduled task runs): no test sleeps.
 */
class ConfigWatcherSettleTest {
    /** {@link TestConfigs#MINIMAL}'s east-a with a queue depth, and a second cluster. */
    private static final String TWO_CLUSTERS = MINIMAL + """
                    max_queue_depth: 64
                  - name: east-b
                    url: http://127.0.0.1:8002
                    models: [demo-model]
            """;

    @TempDir
    Path dir;

    private final List<GatewaySnapshot> applied = new ArrayList<>();
    private final List<String> events = new ArrayList<>();
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

    @AfterEach
    void tearDown() {
        scheduler.shutdownNow();
    }

    @Test
    void fileWrittenInPlace_aValidHalfReadByOnePoll_neverApplied_theWholeAppliedOnceReadTwice() {
        Path config = write(dir, "config.yaml", TWO_CLUSTERS.replace("64", "8"));
        ConfigWatcher watcher = watcher(config);
        // A writer that has written up to the middle of a number, and of the cluster list: a valid config that
        // leaves east-b out and sets east-a's queue depth to 6.
        String whole = TWO_CLUSTERS;
        write(config, whole.substring(0, whole.indexOf("64") + 1) + "\n");

        watcher.pollScheduled();
        write(config, whole);
        watcher.pollScheduled();

        assertThat(applied).isEmpty();
        assertThat(events).isEmpty();

        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(applied).singleElement().satisfies(snapshot -> {
            assertThat(snapshot.config().grid().clusters()).hasSize(2);
        });
        assertThat(events).containsExactly("applied");
    }

    @Test
    void invalidHalf_readByOnePoll_neverRefused() {
        Path config = write(dir, "config.yaml", TWO_CLUSTERS);
        ConfigWatcher watcher = watcher(config);
        write(config, TWO_CLUSTERS.substring(0, TWO_CLUSTERS.indexOf("url: http://127.0.0.1:8002") + 9));

        watcher.pollScheduled();
        write(config, TWO_CLUSTERS.replace("64", "32"));
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).containsExactly("applied");
        assertThat(watcher.current().config().grid().clusters()).hasSize(2);
    }

    @Test
    void invalidChange_readTwice_refusedOnce() {
        Path config = write(dir, "config.yaml", TWO_CLUSTERS);
        ConfigWatcher watcher = watcher(config);
        write(config, "server: {port: -1}\n" + TWO_CLUSTERS);

        watcher.pollScheduled();
        assertThat(events).isEmpty();
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).containsExactly("refused [server.port: -1 (expected: 0..65535)]");
        assertThat(applied).isEmpty();
    }

    @Test
    void fileReplacedByDeleteThenCreate_goneForOnePoll_neverRefused() throws IOException {
        Path config = write(dir, "config.yaml", TWO_CLUSTERS);
        ConfigWatcher watcher = watcher(config);
        Files.delete(config);

        watcher.pollScheduled();
        write(config, TWO_CLUSTERS.replace("64", "32"));
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).containsExactly("applied");
    }

    @Test
    void fileGone_readTwice_refusedOnce() throws IOException {
        Path config = write(dir, "config.yaml", TWO_CLUSTERS);
        ConfigWatcher watcher = watcher(config);
        Files.delete(config);

        watcher.pollScheduled();
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).singleElement().asString().startsWith("refused [").contains("no such file");
    }

    @Test
    void keyFileRewritten_halfReadByOnePoll_neverApplied() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");
        Path config = write(dir, "config.yaml", withGateway("tag_key_path: " + key));
        ConfigWatcher watcher = watcher(config);
        // Half of a rotation: the incoming key written, the outgoing one not yet.
        write(key, KEY_TWO + "\n");

        watcher.pollScheduled();
        write(key, KEY_TWO + "\n" + KEY_ONE + "\n");
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(applied)
                .singleElement()
                .satisfies(snapshot -> assertThat(snapshot.keyRing().keyCount()).isEqualTo(2));
        assertThat(events).containsExactly("applied");
    }

    @Test
    void keyFileInASecretMount_symlinkSwap_appliedOnceSettled_aSwapToAShortKeyRefused_keysInForceKept()
            throws IOException {
        // A Secret volume: tag-key -> ..data/tag-key, ..data -> ..<timestamp>. The kubelet writes a new timestamped
        // directory and renames a new ..data link over the old one; the file's own path never changes.
        Path mount = Files.createDirectory(dir.resolve("secret"));
        write(mount.resolve("..2026_01").resolve("tag-key"), KEY_ONE + "\n");
        Files.createSymbolicLink(mount.resolve("..data"), Path.of("..2026_01"));
        Path key = Files.createSymbolicLink(mount.resolve("tag-key"), Path.of("..data", "tag-key"));
        ConfigWatcher watcher = watcher(write(dir, "config.yaml", withGateway("tag_key_path: " + key)));

        swap(mount, "..2026_02", KEY_TWO + "\n" + KEY_ONE + "\n");
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).containsExactly("applied");
        assertThat(watcher.current().keyRing().sign("east", "0a1b2c3d"))
                .isEqualTo(TagKeyRing.parse(KEY_TWO).sign("east", "0a1b2c3d"));

        swap(mount, "..2026_03", "short-key\n" + KEY_TWO + "\n");
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).hasSize(2).last().asString().contains("line 1: key is shorter than 16 bytes");
        assertThat(watcher.current().keyRing().keyCount()).isEqualTo(2);
        assertThat(watcher.current().keyRing().sign("east", "0a1b2c3d"))
                .isEqualTo(TagKeyRing.parse(KEY_TWO).sign("east", "0a1b2c3d"));
    }

    /** What the kubelet does to a Secret volume: the new content in a new folder, then ..data swapped to it. */
    private static void swap(Path mount, String folder, String content) throws IOException {
        write(mount.resolve(folder).resolve("tag-key"), content);
        Path next = Files.createSymbolicLink(mount.resolve("..data_tmp"), Path.of(folder));
        Files.move(next, mount.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void writeStorm_eachPollReadsAnotherContent_nothingLoaded_theLastAppliedOnceItSettles() {
        Path config = write(dir, "config.yaml", TWO_CLUSTERS);
        ConfigWatcher watcher = watcher(config);

        // 100 writes, a poll after each: valid and invalid contents, each seen once and so never loaded.
        for (int i = 1; i <= 100; i++) {
            write(
                    config,
                    i % 3 == 0 ? "server: {port: -" + i + "}\n" + TWO_CLUSTERS : TWO_CLUSTERS.replace("64", "" + i));
            watcher.pollScheduled();
        }
        assertThat(events).isEmpty();
        watcher.pollScheduled();
        watcher.pollScheduled();

        assertThat(events).containsExactly("applied");
        assertThat(applied).singleElement().isSameAs(watcher.current());
        assertThat(watcher.current().config().grid().clusters().getFirst().maxQueueDepth())
                .hasValue(100);
    }

    private ConfigWatcher watcher(Path config) {
        return new ConfigWatcher(
                config,
                applied::add,
                new ReloadListener() {
                    @Override
                    public void applied() {
                        events.add("applied");
                    }

                    @Override
                    public void refused(List<String> problems) {
                        events.add("refused " + problems);
                    }
                },
                scheduler);
    }
}
