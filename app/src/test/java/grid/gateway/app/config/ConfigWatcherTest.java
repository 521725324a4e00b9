package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.KEY_ONE;
import static grid.gateway.app.config.TestConfigs.KEY_TWO;
import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.withGateway;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.tag.TagKeyRing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every poll is driven by {@code pollNow()} (or by running the scheduled task by hand, which loads a change once two of
 * its polls read it alike: ConfigWatcherSettleTest): no test sleeps.
 */
class ConfigWatcherTest {
    private static final String PORT_8081 = "server: {port: 8081}\n" + MINIMAL;
    private static final String INVALID = "server: {port: -1}\n" + MINIMAL;
    // Scheduled polls an hour apart: the scheduler's own thread never runs one while a test runs them by hand.
    private static final String HOURLY = withGateway("config_poll_ms: 3600000");
    private static final String INVALID_PROBLEM = "server.port: -1 (expected: 0..65535)";

    @TempDir
    Path dir;

    private final List<GatewaySnapshot> applied = new ArrayList<>();
    private final RecordingListener listener = new RecordingListener();
    private final LogLines logs = new LogLines();
    private final Logger logger = Logger.getLogger("grid.gateway.config");
    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private Path config;

    @BeforeEach
    void setUp() {
        scheduler.setRemoveOnCancelPolicy(true);
        logger.addHandler(logs);
        config = write(dir, "config.yaml", MINIMAL);
    }

    @AfterEach
    void tearDown() {
        logger.removeHandler(logs);
        scheduler.shutdownNow();
    }

    @Test
    void constructor_validFile_currentIsTheLoadedSnapshotAndNothingIsReported() {
        ConfigWatcher watcher = watcher();

        assertThat(watcher.current().config().server().port()).isEqualTo(8080);
        assertThat(applied).isEmpty();
        assertThat(listener.events).isEmpty();
    }

    @Test
    void constructor_invalidFile_throwsWithTheProblems() {
        write(config, INVALID);

        assertThatThrownBy(this::watcher).isInstanceOf(ConfigException.class).hasMessage(INVALID_PROBLEM);
    }

    @Test
    void pollNow_unchangedFile_appliesNothing() throws IOException {
        ConfigWatcher watcher = watcher();
        watcher.pollNow();
        // Same bytes, written again with a later modification time: content decides, not the time.
        write(config, MINIMAL);
        Files.setLastModifiedTime(
                config, FileTime.fromMillis(Files.getLastModifiedTime(config).toMillis() + 60_000));

        watcher.pollNow();

        assertThat(applied).isEmpty();
        assertThat(listener.events).isEmpty();
        assertThat(logs.lines).isEmpty();
    }

    @Test
    void pollNow_changedFile_appliesOnceAndLogsOneInfoLine() {
        ConfigWatcher watcher = watcher();
        write(config, PORT_8081);

        watcher.pollNow();
        watcher.pollNow();

        assertThat(applied)
                .singleElement()
                .satisfies(s -> assertThat(s.config().server().port()).isEqualTo(8081));
        assertThat(watcher.current()).isSameAs(applied.getFirst());
        assertThat(listener.events).containsExactly("applied");
        assertThat(logs.lines)
                .containsExactly(
                        "INFO config reloaded from " + config + ": 1 sites, 1 clusters, 0 tag keys",
                        "WARNING config in " + config + " changes keys read only at start, which keep their values"
                                + " from the start until a restart: server.port");
    }

    @Test
    void pollNow_changeOfLiveKeysOnly_noWordOfARestart() {
        ConfigWatcher watcher = watcher();
        write(config, "server: {max_body_bytes: 1024}\n" + MINIMAL);

        watcher.pollNow();

        assertThat(applied).singleElement();
        assertThat(logs.lines)
                .containsExactly("INFO config reloaded from " + config + ": 1 sites, 1 clusters, 0 tag keys");
    }

    @Test
    void pollNow_changeOfStartOnlyBlocks_eachNamedUntilTheFileIsBackToItsStart() {
        ConfigWatcher watcher = watcher();
        String changed = "server: {header_timeout_ms: 5000, max_body_bytes: 1024}\n"
                + "tracing: {otlp_endpoint: \"http://127.0.0.1:4318\"}\n" + MINIMAL;
        write(config, changed);
        watcher.pollNow();
        write(config, MINIMAL);
        watcher.pollNow();

        assertThat(applied).hasSize(2);
        assertThat(logs.lines)
                .containsExactly(
                        "INFO config reloaded from " + config + ": 1 sites, 1 clusters, 0 tag keys",
                        "WARNING config in " + config + " changes keys read only at start, which keep their values"
                                + " from the start until a restart: server.header_timeout_ms, tracing",
                        "INFO config reloaded from " + config + ": 1 sites, 1 clusters, 0 tag keys");
    }

    @Test
    void pollNow_invalidChange_refusedOnceLoggedOnceAndOldSnapshotKept() {
        ConfigWatcher watcher = watcher();
        GatewaySnapshot before = watcher.current();
        write(config, INVALID);

        watcher.pollNow();
        watcher.pollNow();

        assertThat(applied).isEmpty();
        assertThat(watcher.current()).isSameAs(before);
        assertThat(listener.events).containsExactly("refused " + List.of(INVALID_PROBLEM));
        assertThat(logs.lines)
                .containsExactly("WARNING config change in " + config + " refused, the config in force stays: "
                        + INVALID_PROBLEM);
    }

    @Test
    void pollNow_invalidChangeThenFixed_appliesTheFix() {
        ConfigWatcher watcher = watcher();
        write(config, INVALID);
        watcher.pollNow();
        write(config, PORT_8081);

        watcher.pollNow();

        assertThat(watcher.current().config().server().port()).isEqualTo(8081);
        assertThat(listener.events).containsExactly("refused " + List.of(INVALID_PROBLEM), "applied");
    }

    @Test
    void pollNow_invalidChangeUndone_appliesNothing() {
        ConfigWatcher watcher = watcher();
        GatewaySnapshot before = watcher.current();
        write(config, INVALID);
        watcher.pollNow();
        write(config, MINIMAL);

        watcher.pollNow();

        assertThat(applied).isEmpty();
        assertThat(watcher.current()).isSameAs(before);
        assertThat(listener.events).containsExactly("refused " + List.of(INVALID_PROBLEM));
    }

    @Test
    void pollNow_fileDeleted_refusedOnceAndOldSnapshotKept() throws IOException {
        ConfigWatcher watcher = watcher();
        GatewaySnapshot before = watcher.current();
        Files.delete(config);

        watcher.pollNow();
        watcher.pollNow();

        assertThat(watcher.current()).isSameAs(before);
        assertThat(listener.events)
                .containsExactly("refused " + List.of(config + ": cannot read the config file (no such file)"));
        write(config, PORT_8081);
        watcher.pollNow();
        assertThat(watcher.current().config().server().port()).isEqualTo(8081);
    }

    @Test
    void pollNow_keyFileRotated_appliesTheNewKeys() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");
        write(config, withGateway("tag_key_path: " + key));
        ConfigWatcher watcher = watcher();
        // Rotation: the incoming key goes first (it signs), the outgoing one stays to verify.
        write(key, KEY_TWO + "\n" + KEY_ONE + "\n");

        watcher.pollNow();

        TagKeyRing ring = watcher.current().keyRing();
        assertThat(ring.keyCount()).isEqualTo(2);
        assertThat(ring.sign("east", "0a1b2c3d"))
                .isEqualTo(TagKeyRing.parse(KEY_TWO).sign("east", "0a1b2c3d"));
        assertThat(listener.events).containsExactly("applied");
    }

    @Test
    void pollNow_keyFileDeleted_refusedAndOldKeysKept() throws IOException {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");
        write(config, withGateway("tag_key_path: " + key));
        ConfigWatcher watcher = watcher();
        Files.delete(key);

        watcher.pollNow();
        watcher.pollNow();

        assertThat(watcher.current().keyRing().keyCount()).isEqualTo(1);
        assertThat(listener.events)
                .containsExactly("refused "
                        + List.of("gateway.tag_key_path: \"" + key + "\": cannot read the tag key file (no such"
                                + " file)"));
    }

    @Test
    void pollNow_keyFileWithShortKey_refusedAndNeitherProblemNorLogShowsIt() {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");
        write(config, withGateway("tag_key_path: " + key));
        ConfigWatcher watcher = watcher();
        write(key, "tiny-secret\n" + KEY_ONE + "\n");

        watcher.pollNow();

        assertThat(listener.events).singleElement().asString().contains("line 1: key is shorter than 16 bytes");
        assertThat(String.join("\n", listener.events))
                .doesNotContain("tiny-secret")
                .doesNotContain(KEY_ONE);
        assertThat(String.join("\n", logs.lines)).doesNotContain("tiny-secret").doesNotContain(KEY_ONE);
    }

    @Test
    void pollNow_kubernetesSymlinkSwap_appliesTheNewContent() throws IOException {
        // A ConfigMap volume: config.yaml -> ..data/config.yaml, ..data -> ..<timestamp>; an update writes a new
        // timestamped directory and renames a new ..data link over the old one.
        Path mount = Files.createDirectory(dir.resolve("mount"));
        Path first = write(mount.resolve("..2025_01_01").resolve("config.yaml"), MINIMAL);
        Files.createSymbolicLink(
                mount.resolve("..data"), mount.resolve("..2025_01_01").getFileName());
        Path link = Files.createSymbolicLink(mount.resolve("config.yaml"), Path.of("..data", "config.yaml"));
        ConfigWatcher watcher = new ConfigWatcher(link, applied::add, listener, scheduler);
        Path second = write(mount.resolve("..2025_01_02").resolve("config.yaml"), PORT_8081);
        Files.setLastModifiedTime(second, Files.getLastModifiedTime(first));
        Path swap = Files.createSymbolicLink(mount.resolve("..data_tmp"), Path.of("..2025_01_02"));

        Files.move(swap, mount.resolve("..data"), StandardCopyOption.ATOMIC_MOVE);
        watcher.pollNow();

        assertThat(watcher.current().config().server().port()).isEqualTo(8081);
        assertThat(listener.events).containsExactly("applied");
    }

    @Test
    void pollNow_applyThrows_refusedAndOldSnapshotKept() {
        ConfigWatcher watcher = new ConfigWatcher(
                config,
                snapshot -> {
                    throw new IllegalStateException("listener socket busy");
                },
                listener,
                scheduler);
        GatewaySnapshot before = watcher.current();
        write(config, PORT_8081);

        watcher.pollNow();

        assertThat(watcher.current()).isSameAs(before);
        assertThat(listener.events)
                .containsExactly("refused "
                        + List.of(config + ": the config is valid but applying it failed"
                                + " (java.lang.IllegalStateException: listener socket busy)"));
    }

    @Test
    void start_pollsEveryConfigPollMs() {
        write(config, HOURLY);
        ConfigWatcher watcher = watcher();

        watcher.start();
        watcher.start();

        assertThat(scheduler.getQueue())
                .singleElement()
                .satisfies(task -> assertThat(((ScheduledFuture<?>) task).getDelay(TimeUnit.MILLISECONDS))
                        .isBetween(3_500_000L, 3_600_000L));
    }

    @Test
    void scheduledPoll_changedFile_appliedWhenTheNextPollReadsItAlike() {
        write(config, HOURLY);
        ConfigWatcher watcher = watcher();
        watcher.start();
        write(config, "server: {port: 8081}\n" + HOURLY);

        runScheduledPoll();
        assertThat(watcher.current().config().server().port()).isEqualTo(8080);
        assertThat(listener.events).isEmpty();
        runScheduledPoll();

        assertThat(watcher.current().config().server().port()).isEqualTo(8081);
        assertThat(listener.events).containsExactly("applied");
        // Still scheduled for the next poll.
        assertThat(scheduler.getQueue()).hasSize(1);
    }

    @Test
    void scheduledPoll_listenerThrows_logsAndKeepsPolling() {
        ReloadListener failing = new ReloadListener() {
            @Override
            public void applied() {
                throw new IllegalStateException("meter registry closed");
            }
        };
        write(config, HOURLY);
        ConfigWatcher watcher = new ConfigWatcher(config, applied::add, failing, scheduler);
        watcher.start();
        write(config, "server: {port: 8081}\n" + HOURLY);

        runScheduledPoll();
        runScheduledPoll();

        assertThat(logs.lines).last().asString().startsWith("WARNING config poll of " + config + " failed");
        assertThat(scheduler.getQueue()).hasSize(1);
    }

    @Test
    void scheduledPoll_applyOrListenerThrowsAnError_refusedOrLoggedAndKeepsPolling() {
        ReloadListener failing = new ReloadListener() {
            @Override
            public void applied() {
                throw new StackOverflowError();
            }

            @Override
            public void refused(List<String> problems) {
                listener.refused(problems);
            }
        };
        write(config, HOURLY);
        ConfigWatcher watcher = new ConfigWatcher(
                config,
                next -> {
                    if (next.config().server().port() == 8081) {
                        throw new OutOfMemoryError("Java heap space");
                    }
                },
                failing,
                scheduler);
        watcher.start();
        write(config, "server: {port: 8081}\n" + HOURLY);

        runScheduledPoll();
        runScheduledPoll();

        assertThat(listener.events)
                .containsExactly("refused [" + config + ": the config is valid but applying it failed"
                        + " (java.lang.OutOfMemoryError: Java heap space)]");
        assertThat(scheduler.getQueue()).hasSize(1);

        write(config, "server: {port: 8082}\n" + HOURLY);
        runScheduledPoll();
        runScheduledPoll();

        assertThat(watcher.current().config().server().port()).isEqualTo(8082);
        assertThat(logs.lines).last().asString().startsWith("WARNING config poll of " + config + " failed");
        assertThat(scheduler.getQueue()).hasSize(1);
    }

    @Test
    void pollNow_configPollMsChanged_reschedulesAtTheNewInterval() {
        write(config, HOURLY);
        ConfigWatcher watcher = watcher();
        watcher.start();
        write(config, withGateway("config_poll_ms: 7200000"));

        watcher.pollNow();

        assertThat(scheduler.getQueue())
                .singleElement()
                .satisfies(task -> assertThat(((ScheduledFuture<?>) task).getDelay(TimeUnit.MILLISECONDS))
                        .isGreaterThan(3_600_000L));
    }

    @Test
    void close_stopsPollingAndLaterPollsDoNothing() {
        write(config, HOURLY);
        ConfigWatcher watcher = watcher();
        watcher.start();

        watcher.close();
        write(config, PORT_8081);
        watcher.pollNow();

        assertThat(scheduler.getQueue()).isEmpty();
        assertThat(applied).isEmpty();
        assertThatThrownBy(watcher::start).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void close_ownScheduler_stopsIt() {
        ConfigWatcher watcher = new ConfigWatcher(config, applied::add, listener);
        watcher.start();

        watcher.close();
        watcher.close();
        watcher.pollNow();

        assertThat(applied).isEmpty();
    }

    private ConfigWatcher watcher() {
        return new ConfigWatcher(config, applied::add, listener, scheduler);
    }

    /** Runs the scheduled poll on this thread, as its timer would; it schedules itself again. */
    private void runScheduledPoll() {
        Runnable task = scheduler.getQueue().peek();
        assertThat(scheduler.getQueue().remove(task)).isTrue();
        task.run();
    }

    private static final class RecordingListener implements ReloadListener {
        final List<String> events = new ArrayList<>();

        @Override
        public void applied() {
            events.add("applied");
        }

        @Override
        public void refused(List<String> problems) {
            events.add("refused " + problems);
        }
    }

    private static final class LogLines extends Handler {
        final List<String> lines = new ArrayList<>();

        @Override
        public void publish(LogRecord record) {
            String level = record.getLevel() == Level.SEVERE
                    ? "ERROR"
                    : record.getLevel().getName();
            lines.add(level + " " + record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
