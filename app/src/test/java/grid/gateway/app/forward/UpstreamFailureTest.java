package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import org.junit.jupiter.api.Test;

/** The one place an upstream failure is sorted; the kinds are the {@code kind} label values of the metric. */
class UpstreamFailureTest {

    @Test
    void of_connectExceptionWrappedByHelidon_connect() {
        assertThat(UpstreamFailure.of(new UncheckedIOException(new ConnectException("Connection refused"))))
                .isEqualTo(UpstreamFailure.CONNECT);
    }

    @Test
    void of_noRouteOrUnknownHost_connect() {
        assertThat(UpstreamFailure.of(new UncheckedIOException(new NoRouteToHostException("no route"))))
                .isEqualTo(UpstreamFailure.CONNECT);
        assertThat(UpstreamFailure.of(new IllegalStateException(new UnknownHostException("engine.invalid"))))
                .isEqualTo(UpstreamFailure.CONNECT);
    }

    @Test
    void of_connectTimeout_connectNotTimeout() {
        // Nothing was sent: the next candidate may be tried, and the cluster counts toward ejection.
        assertThat(UpstreamFailure.of(new UncheckedIOException(new SocketTimeoutException("Connect timed out"))))
                .isEqualTo(UpstreamFailure.CONNECT);
    }

    @Test
    void of_readTimeout_timeout() {
        assertThat(UpstreamFailure.of(new UncheckedIOException(new SocketTimeoutException("Read timed out"))))
                .isEqualTo(UpstreamFailure.TIMEOUT);
        assertThat(UpstreamFailure.of(new UncheckedIOException(new SocketTimeoutException())))
                .isEqualTo(UpstreamFailure.TIMEOUT);
    }

    @Test
    void of_connectionResetOrAnythingElse_reset() {
        assertThat(UpstreamFailure.of(new UncheckedIOException(new SocketException("Connection reset"))))
                .isEqualTo(UpstreamFailure.RESET);
        assertThat(UpstreamFailure.of(new IllegalStateException("bad chunk", new IOException("x"))))
                .isEqualTo(UpstreamFailure.RESET);
    }

    @Test
    void label_everyKind_documentedLabelValue() {
        assertThat(UpstreamFailure.CONNECT.label()).isEqualTo("connect");
        assertThat(UpstreamFailure.TIMEOUT.label()).isEqualTo("timeout");
        assertThat(UpstreamFailure.RESET.label()).isEqualTo("reset");
        assertThat(UpstreamFailure.OTHER.label()).isEqualTo("other");
    }
}
