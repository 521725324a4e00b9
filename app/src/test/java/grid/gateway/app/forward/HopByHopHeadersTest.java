package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.http.HeaderValues;
import io.helidon.http.WritableHeaders;
import org.junit.jupiter.api.Test;

class HopByHopHeadersTest {
    @Test
    void drops_fixedNamesInAnyCase_dropsThemAndKeepsEndToEndHeaders() {
        HopByHopHeaders hopByHop = HopByHopHeaders.of(WritableHeaders.create());

        assertThat(hopByHop.drops(HeaderValues.create("Transfer-Encoding", "chunked")))
                .isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("KEEP-ALIVE", "timeout=5")))
                .isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("Content-Type", "application/json")))
                .isFalse();
        assertThat(hopByHop.drops(HeaderValues.create("Authorization", "Bearer k")))
                .isFalse();
    }

    @Test
    void drops_headersTheConnectionHeaderNames_dropsThemToo() {
        WritableHeaders<?> headers = WritableHeaders.create();
        headers.add(HeaderValues.create("Connection", "keep-alive, X-Hop , close"));
        headers.add(HeaderValues.create("Connection", "x-other"));

        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);

        assertThat(hopByHop.drops(HeaderValues.create("x-hop", "1"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("X-Other", "1"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("Connection", "close"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("X-Kept", "1"))).isFalse();
    }

    @Test
    void of_keepAliveOnly_dropsNoMoreThanTheFixedNames() {
        WritableHeaders<?> headers = WritableHeaders.create();
        headers.add(HeaderValues.create("Connection", "keep-alive"));

        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);

        assertThat(hopByHop.drops(HeaderValues.create("Close", "x"))).isFalse();
        assertThat(hopByHop.drops(HeaderValues.create("Upgrade", "h2c"))).isTrue();
    }
}
