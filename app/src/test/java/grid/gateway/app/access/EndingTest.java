package grid.gateway.app.access;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.forward.SendTimedOut;
import io.helidon.webserver.CloseConnectionException;
import io.helidon.webserver.ServerConnectionException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.AsynchronousCloseException;
import org.junit.jupiter.api.Test;

/**
 * A write that failed because the send timeout closed the client's connection ends {@code send_timeout}, wherever
 * the cut came from and however Helidon wrapped the failure; a write that failed otherwise is the client gone.
 */
class EndingTest {
    private final AccessRecord record = new AccessRecord("req-1", "POST", 0);

    @Test
    void writeOfTheGatewaysOwnAnswerCutByTheSendWatch_sendTimeout() {
        // Helidon's send(): the socket's exception in an UncheckedIOException in a ServerConnectionException.
        RuntimeException thrown = new ServerConnectionException(
                "Failed to write response",
                new UncheckedIOException(new SendTimedOut(new AsynchronousCloseException())));

        assertThat(Ending.of(record, thrown, false, true, 404)).isEqualTo(Ending.SEND_TIMEOUT);
    }

    @Test
    void relayedAnswerCutByItsAlarm_sendTimeout() {
        record.upstreamStatus = 200;
        RuntimeException thrown = new CloseConnectionException(
                "the client stopped reading its answer",
                new SendTimedOut(new UncheckedIOException(new IOException("closed by interrupt"))));

        assertThat(Ending.of(record, thrown, true, true, 200)).isEqualTo(Ending.SEND_TIMEOUT);
    }

    @Test
    void writeThatFailedOtherwise_clientGone() {
        record.upstreamStatus = 200;
        RuntimeException thrown =
                new ServerConnectionException("Failed to write response", new UncheckedIOException(new IOException()));

        assertThat(Ending.of(record, thrown, true, true, 200)).isEqualTo(Ending.CLIENT_GONE);
    }
}
