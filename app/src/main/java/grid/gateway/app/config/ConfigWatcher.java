package grid.gateway.app.config;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the serving config live (docs/design.md §7): every {@code gateway.config_poll_ms} it re-reads the config file, the
 * tag key file and the TLS certificate, key and CA files, and when the bytes of any changed it loads them again (a
 * certificate rotation is a reload: a broken pair is refused like an invalid config, and the TLS in force stays). A valid change is handed to {@code apply}
 * and logged at INFO; an invalid one, or a file that is gone or unreadable, is logged at WARNING with its problems
 * and the config in force stays. Each outcome is reported once to a {@link ReloadListener}; the same content is not
 * loaded twice in a row, so an invalid file is refused once, not at every poll.
 *
 * <p>Polling, not a file-system watch: a Kubernetes ConfigMap or Secret update swaps a symbolic link, which watch
 * services miss, and files are compared by content, not modification time. A scheduled poll loads a change only once
 * the poll before read the same bytes, so that a file written in place is not applied half-written; tests call
 * {@link #pollNow()}, which loads at once, instead of waiting for the schedule.
 *
 * <p>Thread-safe. Polls are serialised by a lock held across the reads of the config and the files it names (each small,
 * size-bounded and a regular file) and the {@code apply} call, so changes are applied one at a time and in order;
 * {@link #close()} waits for that lock within a bound; {@link #current()} is a volatile read.
 */
public final class ConfigWatcher implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("grid.gateway.config");
    /** How long {@link #close()} waits for a poll in progress before it stops without it. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(5);
    /** How many of a refused change's problems its log line names (each is short: values are cut). */
    static final int LOGGED_PROBLEMS = 20;

    private final Path file;
    private final Consumer<GatewaySnapshot> apply;
    private final ReloadListener listener;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final ReentrantLock lock = new ReentrantLock();

    private volatile GatewaySnapshot current;
    /** The snapshot loaded at start, whose values of the keys read at start stay in force ({@link StartOnlyKeys}). */
    private final GatewaySnapshot first;
    // Guarded by lock: what the snapshot in force was loaded from, what the last load read, and the key file
    // that load read (checked at each poll alongside the config file).
    private FileFingerprint applied;
    private FileFingerprint attempted;
    private List<FileFingerprint.SideFile> sideFiles;
    // Guarded by lock: what the last scheduled poll read when it differed from the last load and was not loaded yet,
    // or null. The schedule loads what two of its polls in a row read alike (see poll).
    private @Nullable FileFingerprint unsettled;
    // Volatile as well: close() cancels the task and says so without the lock when a poll holds it too long.
    private volatile @Nullable ScheduledFuture<?> task;
    private @Nullable Duration taskInterval;
    private volatile boolean closed;

    /**
     * Loads {@code file} now; {@link #start()} then polls it on {@code scheduler}, which the caller owns and shuts
     * down.
     *
     * @param file the config file (a symbolic link is followed at every read)
     * @param apply called with each valid changed snapshot, on the polling thread; not called for the first one
     * @param listener told the outcome of each reload
     * @param scheduler runs the polls
     * @throws ConfigException if the config file is not a valid config now
     */
    public ConfigWatcher(
            Path file, Consumer<GatewaySnapshot> apply, ReloadListener listener, ScheduledExecutorService scheduler) {
        this(file, apply, listener, scheduler, false);
    }

    /**
     * Loads {@code file} now; {@link #start()} then polls it on a daemon thread of its own, stopped by
     * {@link #close()}.
     *
     * @throws ConfigException if the config file is not a valid config now
     */
    public ConfigWatcher(Path file, Consumer<GatewaySnapshot> apply, ReloadListener listener) {
        this(
                file,
                apply,
                listener,
                Executors.newSingleThreadScheduledExecutor(
                        Thread.ofPlatform().daemon().name("grid-config-watcher").factory()),
                true);
    }

    private ConfigWatcher(
            Path file,
            Consumer<GatewaySnapshot> apply,
            ReloadListener listener,
            ScheduledExecutorService scheduler,
            boolean ownsScheduler) {
        this.file = requireNonNull(file, "file");
        this.apply = requireNonNull(apply, "apply");
        this.listener = requireNonNull(listener, "listener");
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.ownsScheduler = ownsScheduler;
        byte[] content;
        try {
            content = ConfigFiles.readConfig(file);
        } catch (IOException e) {
            throw new ConfigException(List.of(cannotRead(e)));
        }
        FileFingerprint.KeyRecorder keys = new FileFingerprint.KeyRecorder();
        this.current = ConfigLoader.load(content, file, keys);
        this.first = current;
        this.applied = new FileFingerprint(FileFingerprint.of(content), keys.state());
        this.attempted = applied;
        this.sideFiles = keys.files();
    }

    /** The snapshot in force: the first one loaded, or the last valid change. */
    public GatewaySnapshot current() {
        return current;
    }

    /** Starts polling every {@code gateway.config_poll_ms} of the snapshot in force; does nothing if polling. */
    public void start() {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("config watcher is closed");
            }
            if (task == null) {
                schedule(current.config().gateway().configPollInterval());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads the files once and, when any changed, loads them at once: an explicit reload (tests call it instead of
     * waiting for the schedule). A scheduled poll loads a change only once two polls in a row read it alike.
     */
    public void pollNow() {
        poll(false);
    }

    /** What each scheduled poll does: reads the files and loads a change two polls in a row read alike. */
    void pollScheduled() {
        poll(true);
    }

    private void poll(boolean settled) {
        lock.lock();
        try {
            if (!closed) {
                read(settled);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops polling, and the polling thread when it is the watcher's own (interrupted). Waits at most
     * {@link #CLOSE_WAIT} for a poll in progress (its reads and its {@code apply}); one still running then is logged
     * and left to end, applying nothing more: a shutdown never waits on a poll without end.
     */
    @Override
    public void close() {
        closed = true;
        boolean locked;
        try {
            locked = lock.tryLock(CLOSE_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            locked = false;
        }
        try {
            if (!locked) {
                LOG.log(Level.WARNING, "config poll of " + file + " still running; the watcher stops without it");
            }
            ScheduledFuture<?> scheduled = task;
            if (scheduled != null) {
                scheduled.cancel(false);
                task = null;
            }
            if (ownsScheduler) {
                scheduler.shutdownNow();
            }
        } finally {
            if (locked) {
                lock.unlock();
            }
        }
    }

    /**
     * A file written in place (a shell redirect, an editor writing into it) can be read half-written, and a half that
     * is a valid config would be applied: with {@code settled}, a change is loaded only when the poll before read the
     * same bytes, so a writer that pauses for less than a poll interval is never applied half-way, and a certificate
     * and key replaced one after the other are loaded together. A change then applies one to two intervals after it
     * was written.
     */
    private void read(boolean settled) {
        byte[] content;
        String configState;
        try {
            content = ConfigFiles.readConfig(file);
            configState = FileFingerprint.of(content);
        } catch (IOException e) {
            FileFingerprint seen = new FileFingerprint(FileFingerprint.unreadable(e), keyState());
            if (!seen.equals(attempted) && settledOn(seen, settled)) {
                attempted = seen;
                refuse(List.of(cannotRead(e)));
            }
            return;
        }
        FileFingerprint seen = new FileFingerprint(configState, keyState());
        if (seen.equals(attempted)) {
            unsettled = null;
            return;
        }
        if (!settledOn(seen, settled)) {
            return;
        }
        FileFingerprint.KeyRecorder keys = new FileFingerprint.KeyRecorder();
        GatewaySnapshot next;
        try {
            next = ConfigLoader.load(content, file, keys);
        } catch (ConfigException e) {
            remember(configState, keys);
            refuse(e.problems());
            return;
        } catch (RuntimeException | Error e) {
            // A file the loader cannot cope with (one that exhausts memory, say) is refused once, as an invalid one.
            remember(configState, keys);
            refuse(List.of(file + ": the config could not be loaded (" + e + ")"));
            return;
        }
        remember(configState, keys);
        // Back to the content in force (say, after a refused edit was undone): nothing to apply.
        if (!attempted.equals(applied)) {
            apply(next);
        }
    }

    /** True when {@code seen} may be loaded now: not {@code settled}, or the poll before read it too. */
    private boolean settledOn(FileFingerprint seen, boolean settled) {
        if (settled && !seen.equals(unsettled)) {
            unsettled = seen;
            return false;
        }
        unsettled = null;
        return true;
    }

    private String keyState() {
        return FileFingerprint.ofSideFiles(sideFiles);
    }

    private void remember(String configState, FileFingerprint.KeyRecorder keys) {
        attempted = new FileFingerprint(configState, keys.state());
        sideFiles = keys.files();
    }

    private void apply(GatewaySnapshot next) {
        if (closed) {
            return; // closed while this poll read the files
        }
        try {
            apply.accept(next);
        } catch (RuntimeException | Error e) {
            String problem = file + ": the config is valid but applying it failed (" + e + ")";
            LOG.log(Level.WARNING, "config change refused, the config in force stays: " + problem);
            listener.refused(List.of(problem));
            return;
        }
        current = next;
        applied = attempted;
        GatewayConfig config = next.config();
        LOG.log(
                Level.INFO,
                "config reloaded from " + file + ": " + config.grid().sites().size() + " sites, "
                        + config.grid().clusters().size() + " clusters, "
                        + next.keyRing().keyCount() + " tag keys");
        List<String> kept = StartOnlyKeys.changed(first.config(), config);
        if (!kept.isEmpty()) {
            LOG.log(
                    Level.WARNING,
                    "config in " + file + " changes keys read only at start, which keep their values from the start"
                            + " until a restart: " + String.join(", ", kept));
        }
        listener.applied();
        Duration interval = config.gateway().configPollInterval();
        ScheduledFuture<?> scheduled = task;
        if (scheduled != null && !closed && !interval.equals(taskInterval)) {
            scheduled.cancel(false);
            schedule(interval);
        }
    }

    private void refuse(List<String> problems) {
        LOG.log(Level.WARNING, "config change in " + file + " refused, the config in force stays: " + shown(problems));
        listener.refused(problems);
    }

    /**
     * The first {@link #LOGGED_PROBLEMS} problems, and how many more there are: a file of the wrong kind can hold
     * hundreds of thousands of problems, and a line longer than the log's queue is dropped whole, so the refusal
     * would not be said at all. {@code --check-config} prints every one.
     */
    private String shown(List<String> problems) {
        if (problems.size() <= LOGGED_PROBLEMS) {
            return String.join("; ", problems);
        }
        return String.join("; ", problems.subList(0, LOGGED_PROBLEMS)) + "; and " + (problems.size() - LOGGED_PROBLEMS)
                + " more (grid-gateway --check-config " + file + " prints every one)";
    }

    private void schedule(Duration interval) {
        long millis = interval.toMillis();
        task = scheduler.scheduleWithFixedDelay(this::pollLogged, millis, millis, TimeUnit.MILLISECONDS);
        taskInterval = interval;
    }

    // A scheduled task that throws, an Error included, is never run again, and nothing would say so: the config
    // in force would stay for good while the file changes. A failure (a bug in a listener, say) is logged instead.
    private void pollLogged() {
        try {
            pollScheduled();
        } catch (RuntimeException | Error e) {
            LOG.log(Level.WARNING, "config poll of " + file + " failed", e);
        }
    }

    private String cannotRead(IOException e) {
        return file + ": cannot read the config file (" + ConfigFiles.describe(e) + ")";
    }
}
