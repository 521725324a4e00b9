package grid.gateway.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records one logger publishes while this is open, for a test to assert on: attached on creation, detached on
 * {@link #close()}. Thread-safe: records come from whichever thread logs.
 */
public final class CapturedLog extends Handler implements AutoCloseable {
    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private CapturedLog(Logger logger) {
        this.logger = logger;
        logger.addHandler(this);
    }

    /** The records of the logger named for {@code owner}, from now until {@link #close()}. */
    public static CapturedLog of(Class<?> owner) {
        return new CapturedLog(Logger.getLogger(owner.getName()));
    }

    /** The records of the logger named {@code name}, from now until {@link #close()}. */
    public static CapturedLog named(String name) {
        return new CapturedLog(Logger.getLogger(name));
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    /** The records so far, in the order published. */
    public List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** The messages so far (unformatted), in the order published. */
    public List<String> messages() {
        return records.stream().map(r -> String.valueOf(r.getMessage())).toList();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
