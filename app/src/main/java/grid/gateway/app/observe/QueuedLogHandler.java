package grid.gateway.app.observe;

import grid.gateway.app.access.LineQueue;
import grid.gateway.app.endpoint.RedactedPath;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.ConsoleHandler;
import java.util.logging.ErrorManager;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The gateway's own log (java.util.logging, which System.Logger and Helidon log through) to stderr without making the
 * thread that logs wait for stderr: each record is formatted on that thread and its line handed to a {@link LineQueue},
 * whose one writer thread writes to the stream. A stderr that nobody reads (a stalled log shipper, a full pipe) stalls
 * that writer only: lines that do not fit the queue's 1 MiB are dropped and counted ({@code grid_log_dropped_total}),
 * and a request thread that logs a fault, or the accept loop that logs a pause, goes on. {@link ConsoleHandler} writes on
 * the logging thread itself, under a lock every other logging thread then waits for.
 *
 * <p>A message's control characters are escaped ({@code \n} as the two characters backslash and n) before it is
 * formatted: a message may quote what a client sent (a path, a query parameter), and a line break in it would forge
 * a log line of the text format. A stack trace keeps its lines. For the same reason each word of a message that may
 * be a stored id is {@code {id}} ({@link RedactedPath#inText}), whoever logs it: Helidon quotes a request's raw
 * path at WARNING when a handler fails after its answer began ({@code Request failed: GET /v1/responses/resp_…}),
 * and a line's exception, its causes and its suppressed exceptions are written with their messages escaped and
 * redacted the same way ({@link LoggedThrowable}).
 *
 * <p>Thread-safe.
 */
public final class QueuedLogHandler extends Handler {
    /** How long {@link #flush()} (and the log manager's close at exit) waits for queued lines to reach the stream. */
    private static final long FLUSH_MILLIS = 1_000;

    private final LineQueue queue;

    /** A handler writing to {@code out}, with the console handler's defaults: {@link SimpleFormatter}, all levels. */
    public QueuedLogHandler(OutputStream out) {
        this.queue = new LineQueue(out, LineQueue.CAPACITY, "grid-log-writer");
        setFormatter(new SimpleFormatter());
        setLevel(Level.ALL);
    }

    /**
     * Replaces the root logger's console handlers (those writing to stderr) with one handler writing to {@code err}
     * with the first one's level and formatter; adds it when the root logger had none. Returns the handler.
     */
    public static QueuedLogHandler replaceConsole(OutputStream err) {
        Logger root = Logger.getLogger("");
        QueuedLogHandler queued = new QueuedLogHandler(err);
        boolean copied = false;
        for (Handler handler : root.getHandlers()) {
            if (handler instanceof ConsoleHandler console) {
                if (!copied) {
                    queued.setLevel(console.getLevel());
                    queued.setFormatter(console.getFormatter());
                    copied = true;
                }
                root.removeHandler(console);
            }
        }
        root.addHandler(queued);
        return queued;
    }

    /** Lines dropped by the root logger's queued handlers: {@code grid_log_dropped_total}; 0 when none is installed. */
    public static long droppedOnRoot() {
        long dropped = 0;
        for (Handler handler : Logger.getLogger("").getHandlers()) {
            if (handler instanceof QueuedLogHandler queued) {
                dropped += queued.dropped();
            }
        }
        return dropped;
    }

    @Override
    public void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        String line;
        try {
            String message = getFormatter().formatMessage(record);
            String escaped = RedactedPath.inText(LogText.escapeControls(message));
            if (!escaped.equals(message)) {
                record.setMessage(escaped);
                record.setParameters(null);
                record.setResourceBundle(null);
            }
            if (record.getThrown() != null) {
                record.setThrown(LoggedThrowable.of(record.getThrown()));
            }
            line = getFormatter().format(record);
        } catch (RuntimeException e) {
            reportError(null, e, ErrorManager.FORMAT_FAILURE);
            return;
        }
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        queue.write(bytes, bytes.length);
    }

    /** Waits at most a second for the lines queued so far to reach the stream. */
    @Override
    public void flush() {
        queue.flush(FLUSH_MILLIS);
    }

    @Override
    public void close() {
        flush();
    }

    /** Lines dropped because the stream did not take them in time. */
    public long dropped() {
        return queue.dropped();
    }
}
