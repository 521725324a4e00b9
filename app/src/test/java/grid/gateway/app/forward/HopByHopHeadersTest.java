package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.helidon.http.HeaderNames;
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

    @Test
    void drops_http2SettingsEvenWhenConnectionDoesNotNameIt() {
        // HTTP2-Settings belongs to an h2c upgrade of this one connection.
        WritableHeaders<?> headers = WritableHeaders.create();
        headers.add(HeaderValues.create("Connection", "keep-alive"));

        assertThat(HopByHopHeaders.of(headers).drops(HeaderValues.create("HTTP2-Settings", "AAMAAABkAAQAAP__")))
                .isTrue();
        assertThat(HopByHopHeaders.of(WritableHeaders.create())
                        .drops(HeaderValues.create("http2-settings", "AAMAAABkAAQAAP__")))
                .isTrue();
    }

    @Test
    void keeps_forwardedAndXForwardedHeaders_endToEnd() {
        // Decision (docs/decisions.md, "Decisions of the gateway process"): the gateway neither trusts nor strips them.
        HopByHopHeaders hopByHop = HopByHopHeaders.of(WritableHeaders.create());

        assertThat(hopByHop.drops(HeaderValues.create("Forwarded", "for=192.0.2.1;proto=https")))
                .isFalse();
        assertThat(hopByHop.drops(HeaderValues.create("X-Forwarded-Host", "api.example")))
                .isFalse();
        assertThat(hopByHop.drops(HeaderValues.create("X-Forwarded-Proto", "https")))
                .isFalse();
    }

    @Test
    void of_connectionNamingOnlyKnownTokensInAnyCaseAndSpacing_dropsTheFixedNamesOnly() {
        WritableHeaders<?> headers = WritableHeaders.create();
        headers.add(HeaderValues.create("Connection", " Keep-Alive ,CLOSE,, Upgrade,\tte "));

        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);

        assertThat(hopByHop.drops(HeaderValues.create("Upgrade", "h2c"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("TE", "trailers"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("Close", "x"))).isFalse();
        assertThat(hopByHop.drops(HeaderValues.create("Content-Type", "application/json")))
                .isFalse();
    }

    @Test
    void of_connectionNamingAHeaderAfterKnownOnes_dropsItWhateverItsCase() {
        WritableHeaders<?> headers = WritableHeaders.create();
        headers.add(HeaderValues.create("Connection", "close,X-Private-Hop"));

        HopByHopHeaders hopByHop = HopByHopHeaders.of(headers);

        assertThat(hopByHop.drops(HeaderValues.create("x-private-hop", "1"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("X-PRIVATE-HOP", "1"))).isTrue();
        assertThat(hopByHop.drops(HeaderValues.create("X-Private", "1"))).isFalse();
    }

    @Test
    void drops_knownAndCustomNamesAlike_asTheirLowerCaseNames() {
        // Helidon's own name constants are looked up by index, other names by their lower-case text: both agree.
        HopByHopHeaders fixedOnly = HopByHopHeaders.of(WritableHeaders.create());
        WritableHeaders<?> named = WritableHeaders.create();
        named.add(HeaderValues.create("Connection", "Content-Type, X-Hop"));
        HopByHopHeaders withNamed = HopByHopHeaders.of(named);

        assertThat(fixedOnly.drops(HeaderValues.create(HeaderNames.TRANSFER_ENCODING, "chunked")))
                .isTrue();
        assertThat(fixedOnly.drops(HeaderValues.create(HeaderNames.UPGRADE, "h2c")))
                .isTrue();
        assertThat(fixedOnly.drops(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/plain")))
                .isFalse();
        assertThat(fixedOnly.drops(HeaderValues.create(HeaderNames.create("Proxy-Connection"), "x")))
                .isTrue();
        assertThat(withNamed.drops(HeaderValues.create(HeaderNames.CONTENT_TYPE, "text/plain")))
                .isTrue();
        assertThat(withNamed.drops(HeaderValues.create(HeaderNames.TRANSFER_ENCODING, "chunked")))
                .isTrue();
        assertThat(withNamed.drops(HeaderValues.create(HeaderNames.ACCEPT, "*/*")))
                .isFalse();
    }
}
