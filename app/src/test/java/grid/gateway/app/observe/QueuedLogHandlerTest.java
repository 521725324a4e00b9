package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import grid.gateway.app.access.LineQueue;
import grid.gateway.app.access.StalledOutput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The gateway's own log handler: a thread that logs never waits for a stalled stderr, lines past the queue are dropped
 * and counted, lines flow again in order; a message cannot break its line.
 */
class QueuedLogHandlerTest {
    private static final Duration PUBLISH_BOUND = Duration.ofSeconds(5);

    /** Formats a record as its message and a newline, padded so that a known number fill the queue. */
    private static final class MessageLines extends Formatter {
        @Override
        public String format(LogRecord record) {
            return formatMessage(record) + "\n";
        }
    }

    private static LogRecord record(String message) {
        return new LogRecord(Level.WARNING, message);
    }

    @Test
    void stderrStalled_publishReturns_linesPastTheQueueDroppedAndCounted_thenFlowInOrder() throws Exception {
        StalledOutput output = new StalledOutput();
        QueuedLogHandler handler = new QueuedLogHandler(output);
        handler.setFormatter(new MessageLines());
        String pad = "x".repeat(999 - 6);
        int fit = LineQueue.CAPACITY / 1_000;
        int extra = 30;

        assertTimeoutPreemptively(PUBLISH_BOUND, () -> handler.publish(record("000000" + pad)));
        assertThat(output.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertTimeoutPreemptively(PUBLISH_BOUND, () -> {
            for (int n = 1; n <= fit + extra; n++) {
                handler.publish(record("%06d".formatted(n) + pad));
            }
        });
        assertThat(handler.dropped()).isEqualTo(extra);

        output.opened.countDown();
        handler.flush();
        String[] lines = output.text().split("\n");
        assertThat(lines).hasSize(fit + 1);
        for (int n = 0; n <= fit; n++) {
            assertThat(lines[n]).startsWith("%06d".formatted(n));
        }
    }

    @Test
    void aMessageWithLineBreaks_staysOneLine_aStackTraceKeepsItsLines() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        QueuedLogHandler handler = new QueuedLogHandler(out);
        LogRecord forged = record("route explain disabled: POST /v1/x\nSEVERE: forged line {0}");
        forged.setParameters(new Object[] {"\r\u2028end"});
        handler.publish(forged);
        LogRecord failed = record("scrape failed");
        failed.setThrown(new IllegalStateException("boom"));
        handler.publish(failed);
        handler.flush();

        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains("WARNING: route explain disabled: POST /v1/x\\nSEVERE: forged line \\r\\u2028end")
                .doesNotContain("\nSEVERE: forged");
        assertThat(text).contains("java.lang.IllegalStateException: boom\n\tat ");
    }

    /** Helidon's line for a handler that fails after its answer began quotes the raw path, whoever's id it holds. */
    @Test
    void aMessageQuotingAStoredId_logsItAsTheIdMark() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        QueuedLogHandler handler = new QueuedLogHandler(out);
        handler.publish(record("Request failed: GET /v1/files/%72esp_east.1a2b3c4d..SECRET1 HTTP/1.1, cannot send error"
                + " response, as response already sent"));
        handler.publish(record("Request failed: GET /V1/Responses/SECRET2 HTTP/1.1"));
        LogRecord quoted = record("body field {0} not found");
        quoted.setParameters(new Object[] {"\"conv_east.1a2b3c4d..SECRET3\""});
        handler.publish(quoted);
        handler.publish(record("scrape of cluster east-a failed: connection refused"));
        handler.flush();

        assertThat(out.toString(StandardCharsets.UTF_8))
                .doesNotContain("SECRET")
                .contains("WARNING: Request failed: GET /v1/files/{id} HTTP/1.1, cannot send error response")
                .contains("WARNING: Request failed: GET /V1/Responses/{id} HTTP/1.1")
                .contains("WARNING: body field \"{id}\" not found")
                .contains("WARNING: scrape of cluster east-a failed: connection refused");
    }

    /** An exception's, its causes' and suppressed exceptions' messages: ids are the mark, a line break is escaped. */
    @Test
    void aThrownQuotingAStoredIdOrALineBreak_logsTheIdMarkAndTheEscape_theTraceKept() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        QueuedLogHandler handler = new QueuedLogHandler(out);
        LogRecord failed = record("Request failed");
        IllegalStateException thrown = new IllegalStateException(
                "cannot route /v1/responses/resp_east.1a2b3c4d..SECRET1",
                new IllegalArgumentException("Illegal character in path at index 9: /v1/files/%72esp_x..SECRET2"));
        thrown.addSuppressed(new IllegalStateException("engine said\nSEVERE: forged line"));
        failed.setThrown(thrown);
        handler.publish(failed);
        handler.flush();

        assertThat(out.toString(StandardCharsets.UTF_8))
                .doesNotContain("SECRET")
                .doesNotContain("\nSEVERE: forged")
                .contains("java.lang.IllegalStateException: cannot route /v1/responses/{id}\n\tat ")
                .contains("\tat grid.gateway.app.observe.QueuedLogHandlerTest.")
                .contains("Suppressed: java.lang.IllegalStateException: engine said\\nSEVERE: forged line")
                .contains("Caused by: java.lang.IllegalArgumentException: Illegal character in path at index 9:"
                        + " /v1/files/{id}");
    }

    @Test
    void replaceConsole_takesTheConsoleHandlersPlace_withItsLevelAndFormatter() {
        Logger root = Logger.getLogger("");
        Handler[] before = root.getHandlers();
        ConsoleHandler console = new ConsoleHandler();
        console.setLevel(Level.FINE);
        MessageLines formatter = new MessageLines();
        console.setFormatter(formatter);
        try {
            for (Handler handler : before) {
                root.removeHandler(handler);
            }
            root.addHandler(console);

            QueuedLogHandler queued = QueuedLogHandler.replaceConsole(new ByteArrayOutputStream());

            assertThat(root.getHandlers()).containsExactly(queued);
            assertThat(queued.getLevel()).isEqualTo(Level.FINE);
            assertThat(queued.getFormatter()).isSameAs(formatter);
            assertThat(QueuedLogHandler.droppedOnRoot()).isZero();
        } finally {
            for (Handler handler : root.getHandlers()) {
                root.removeHandler(handler);
            }
            for (Handler handler : before) {
                root.addHandler(handler);
            }
        }
    }
}
