package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class UncaughtLoggedTest {
    /** A thread's uncaught exception goes through the gateway's log: one SEVERE line, its message redacted. */
    @Test
    void anUncaughtException_isOneSevereLineOfTheLog_redactedAndEscaped() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        QueuedLogHandler handler = new QueuedLogHandler(out);
        Logger logger = Logger.getLogger(UncaughtLogged.class.getName());
        logger.addHandler(handler);
        try {
            Thread thread = Thread.ofVirtual()
                    .name("scrape east/a")
                    .uncaughtExceptionHandler(new UncaughtLogged())
                    .unstarted(() -> {
                        throw new IllegalStateException("bad id resp_east.1a2b3c4d..SECRET, then\nSEVERE: forged");
                    });
            thread.start();
            thread.join();
            handler.flush();
        } finally {
            logger.removeHandler(handler);
        }

        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("SEVERE: uncaught in thread \"scrape east/a\"")
                .contains("java.lang.IllegalStateException: bad id {id}, then\\nSEVERE: forged")
                .doesNotContain("SECRET")
                .doesNotContain("\nSEVERE: forged");
    }
}
