package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.Test;

class UpstreamErrorKindTest {

    @Test
    void of_connectExceptionWrappedByHelidon_connect() {
        assertThat(UpstreamErrorKind.of(new UncheckedIOException(new ConnectException("Connection refused"))))
                .isEqualTo(UpstreamErrorKind.CONNECT);
    }

    @Test
    void of_socketTimeout_timeout() {
        assertThat(UpstreamErrorKind.of(new UncheckedIOException(new SocketTimeoutException("Read timed out"))))
                .isEqualTo(UpstreamErrorKind.TIMEOUT);
    }

    @Test
    void of_connectionReset_reset() {
        assertThat(UpstreamErrorKind.of(new UncheckedIOException(new SocketException("Connection reset"))))
                .isEqualTo(UpstreamErrorKind.RESET);
    }

    @Test
    void of_unknownFailure_other() {
        assertThat(UpstreamErrorKind.of(new IllegalStateException("bad chunk", new IOException("x"))))
                .isEqualTo(UpstreamErrorKind.OTHER);
    }

    @Test
    void label_everyKind_lowerCaseName() {
        assertThat(UpstreamErrorKind.CONNECT.label()).isEqualTo("connect");
        assertThat(UpstreamErrorKind.TIMEOUT.label()).isEqualTo("timeout");
        assertThat(UpstreamErrorKind.RESET.label()).isEqualTo("reset");
        assertThat(UpstreamErrorKind.OTHER.label()).isEqualTo("other");
    }
}
