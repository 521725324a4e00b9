package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.KEY_ONE;
import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static grid.gateway.app.config.TestConfigs.withGateway;
import static grid.gateway.app.config.TestConfigs.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Config and secret paths that name something other than a regular file: a named pipe (whose read would block until a
 * writer came), {@code /dev/zero} (never ends) and a directory are refused, at start and at a reload, before they are
 * opened. The preemptive bounds only fail a test that would hang.
 */
class SpecialFilesTest {
    private static final Duration FAILURE_BOUND = Duration.ofSeconds(10);
    private static final Path DEV_ZERO = Path.of("/dev/zero");

    @TempDir
    Path dir;

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final List<String> events = new ArrayList<>();

    @AfterEach
    void tearDown() {
        scheduler.shutdownNow();
    }

    /** A named pipe at {@code path}, made by {@code mkfifo} (Java has no call for one). */
    static Path fifo(Path path) throws IOException, InterruptedException {
        Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).start();
        assertThat(mkfifo.waitFor()).as("mkfifo " + path).isZero();
        return path;
    }

    @Test
    void start_configFileIsANamedPipe_refusedNamingIt() throws Exception {
        Path config = fifo(dir.resolve("config.yaml"));

        assertThat(startProblems(config))
                .containsExactly(config + ": cannot read the config file (not a regular file: a named pipe)");
    }

    @Test
    void start_configFileIsADirectoryOrDevZero_refusedSayingWhatItIs() throws IOException {
        Path directory = Files.createDirectory(dir.resolve("config.d"));

        assertThat(startProblems(directory))
                .containsExactly(directory + ": cannot read the config file (not a regular file: a directory)");
        assertThat(startProblems(DEV_ZERO))
                .containsExactly(DEV_ZERO + ": cannot read the config file (not a regular file: a character device)");
    }

    @Test
    void start_tagKeyPathNamesAPipeADeviceOrADirectory_refusedNamingTheKeyAndThePath() throws Exception {
        Path pipe = fifo(dir.resolve("tag-key"));
        Path directory = Files.createDirectory(dir.resolve("keys"));

        assertThat(keyProblems(pipe)).containsExactly(tagKeyProblem(pipe, "a named pipe"));
        assertThat(keyProblems(DEV_ZERO)).containsExactly(tagKeyProblem(DEV_ZERO, "a character device"));
        assertThat(keyProblems(directory)).containsExactly(tagKeyProblem(directory, "a directory"));
    }

    @Test
    void start_symlinkToANamedPipe_refusedAsThePipe() throws Exception {
        Path pipe = fifo(dir.resolve("..data-pipe"));
        Path link = Files.createSymbolicLink(dir.resolve("tag-key"), pipe);

        assertThat(keyProblems(link)).containsExactly(tagKeyProblem(link, "a named pipe"));
    }

    @Test
    void start_tokenFileTlsFileAndPasswordFileNamingAPipe_eachRefusedNamingItsKey() throws Exception {
        Path pipe = fifo(dir.resolve("secret"));
        Path config = write(
                dir,
                "config.yaml",
                "server:\n  route_explain: {enabled: true, token_file: secret}\n"
                        + "  tls: {cert_file: secret, key_file: secret}\n"
                        + MINIMAL
                        + "plugins:\n  grid_site_route:\n    prefix_affinity:\n      sharing:\n"
                        + "        redis_url: redis://127.0.0.1:6379\n        password_file: secret\n");

        assertThat(startProblems(config))
                .contains(
                        "server.route_explain.token_file: \"" + pipe
                                + "\": cannot read the token file (not a regular file: a named pipe)",
                        "server.tls.cert_file: \"" + pipe
                                + "\": cannot read the file (not a regular file: a named pipe)",
                        "plugins.grid_site_route.prefix_affinity.sharing.password_file: \"" + pipe
                                + "\": not a regular file: a named pipe");
    }

    @Test
    void reload_keyFileSwappedForANamedPipe_refusedAndTheOldKeysServe() throws Exception {
        Path key = write(dir, "tag-key", KEY_ONE + "\n");
        Path config = write(dir, "config.yaml", withGateway("tag_key_path: " + key));
        ConfigWatcher watcher = watcher(config);
        GatewaySnapshot before = watcher.current();
        Files.delete(key);
        fifo(key);

        assertTimeoutPreemptively(FAILURE_BOUND, watcher::pollNow);
        assertTimeoutPreemptively(FAILURE_BOUND, watcher::pollNow);

        assertThat(watcher.current()).isSameAs(before);
        assertThat(events).containsExactly("refused " + List.of(tagKeyProblem(key, "a named pipe")));
    }

    @Test
    void reload_configFileSwappedForANamedPipe_refusedAndTheOldConfigServes() throws Exception {
        Path config = write(dir, "config.yaml", MINIMAL);
        ConfigWatcher watcher = watcher(config);
        GatewaySnapshot before = watcher.current();
        Files.delete(config);
        fifo(config);

        assertTimeoutPreemptively(FAILURE_BOUND, watcher::pollNow);

        assertThat(watcher.current()).isSameAs(before);
        assertThat(events)
                .containsExactly("refused "
                        + List.of(config + ": cannot read the config file (not a regular file: a named pipe)"));
    }

    private static String tagKeyProblem(Path path, String what) {
        return "gateway.tag_key_path: \"" + path + "\": cannot read the tag key file (not a regular file: " + what
                + ")";
    }

    /** The problems a start from {@code config} (a watcher's first load, as GatewayServer.start does) is refused with. */
    private List<String> startProblems(Path config) {
        ConfigException refused = catchThrowableOfType(
                ConfigException.class, () -> assertTimeoutPreemptively(FAILURE_BOUND, () -> watcher(config)));
        assertThat(refused).as("start refused").isNotNull();
        return refused.problems();
    }

    private List<String> keyProblems(Path key) {
        return startProblems(write(dir, "config.yaml", withGateway("tag_key_path: " + key)));
    }

    private ConfigWatcher watcher(Path config) {
        return new ConfigWatcher(
                config,
                snapshot -> events.add("applied"),
                new ReloadListener() {
                    @Override
                    public void applied() {}

                    @Override
                    public void refused(List<String> problems) {
                        events.add("refused " + problems);
                    }
                },
                scheduler);
    }
}
