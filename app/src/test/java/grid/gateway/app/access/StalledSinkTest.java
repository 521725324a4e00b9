package grid.gateway.app.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The access log's stdout sink when whatever reads stdout stops reading: a request's line never waits for the output,
 * lines that do not fit the queue are dropped and counted, and lines flow again once the output takes bytes.
 */
class StalledSinkTest {
    /** The bound on one line's write; a stalled output holds a write for ever. */
    private static final Duration WRITE_BOUND = Duration.ofSeconds(5);

    private static final int LINE = 1_000;

    /** Line {@code n}: its number, padded to {@link #LINE} bytes with its newline. */
    private static byte[] line(int n) {
        String text = String.valueOf(n);
        return (text + "x".repeat(LINE - 1 - text.length()) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void outputStalled_writesReturnLinesPastTheQueueDroppedAndCounted_thenFlowAgainInOrder() throws Exception {
        StalledOutput output = new StalledOutput();
        AccessSink sink = AccessSink.to(output);
        int fit = LineQueue.CAPACITY / LINE;
        int extra = 25;

        assertTimeoutPreemptively(WRITE_BOUND, () -> sink.write(line(0), LINE));
        assertThat(output.entered.await(10, TimeUnit.SECONDS))
                .as("the writer is in the stalled write")
                .isTrue();
        assertTimeoutPreemptively(WRITE_BOUND, () -> {
            for (int n = 1; n <= fit + extra; n++) {
                sink.write(line(n), LINE);
            }
        });

        assertThat(sink.dropped()).isEqualTo(extra);
        assertThat(sink.flush(0)).as("nothing reached the stalled output").isFalse();

        output.opened.countDown();
        assertThat(sink.flush(10_000)).isTrue();
        StringBuilder expected = new StringBuilder();
        for (int n = 0; n <= fit; n++) {
            expected.append(new String(line(n), StandardCharsets.UTF_8));
        }
        assertThat(output.text()).isEqualTo(expected.toString());

        sink.write(line(fit + extra + 1), LINE);
        assertThat(sink.flush(10_000)).isTrue();
        assertThat(output.text()).endsWith(new String(line(fit + extra + 1), StandardCharsets.UTF_8));
        assertThat(sink.dropped()).isEqualTo(extra);
    }

    @Test
    void lineUsedOnceWritten_theQueueHoldsItsOwnCopy() throws Exception {
        StalledOutput output = new StalledOutput();
        AccessSink sink = AccessSink.to(output);
        byte[] reused = line(1);

        assertTimeoutPreemptively(WRITE_BOUND, () -> sink.write(line(0), LINE));
        assertThat(output.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertTimeoutPreemptively(WRITE_BOUND, () -> sink.write(reused, LINE));
        java.util.Arrays.fill(reused, (byte) 'z');
        output.opened.countDown();

        assertThat(sink.flush(10_000)).isTrue();
        assertThat(output.text())
                .isEqualTo(new String(line(0), StandardCharsets.UTF_8) + new String(line(1), StandardCharsets.UTF_8));
    }
}
