package grid.gateway.app.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RequestIdsTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "a",
                "req_011CSHoEeqs5C3ojabcd",
                "3f2b9c1e-8d4a-4f6b-9a0e-1c2d3e4f5a6b",
                "01ARZ3NDEKTSV4RRFFQ69G5FAV",
                "dGVzdA+/==",
                "span:1.2@host"
            })
    void wellFormed_kept(String id) {
        assertThat(RequestIds.wellFormed(id)).isTrue();
        assertThat(RequestIds.choose(id, () -> "fresh")).isEqualTo(id);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "two words", "quote\"", "back\\slash", "new\nline", "tab\t", "ü", "{json}", "a,b", "a;b"})
    void malformed_replaced(String id) {
        assertThat(RequestIds.wellFormed(id)).isFalse();
        assertThat(RequestIds.choose(id, () -> "fresh")).isEqualTo("fresh");
    }

    /** A stored id is a capability: an id that may be one is never kept (logged, returned, sent on). */
    @ParameterizedTest
    @ValueSource(strings = {"resp_east.1a2b3c4d..0123", "RESP_EAST.1A2B3C4D..0123", "trace-conv_x", "Conv_1"})
    void holdingAStoredId_replaced(String id) {
        assertThat(RequestIds.wellFormed(id)).isFalse();
        assertThat(RequestIds.choose(id, () -> "fresh")).isEqualTo("fresh");
    }

    @Test
    void length_upTo128() {
        assertThat(RequestIds.wellFormed("x".repeat(128))).isTrue();
        assertThat(RequestIds.wellFormed("x".repeat(129))).isFalse();
        assertThat(RequestIds.choose(null, () -> "fresh")).isEqualTo("fresh");
    }

    @Test
    void randomUuids_version4AndWellFormed() {
        String id = RequestIds.randomUuids().get();
        assertThat(UUID.fromString(id).version()).isEqualTo(4);
        assertThat(UUID.fromString(id).variant()).isEqualTo(2);
        assertThat(RequestIds.wellFormed(id)).isTrue();
        assertThat(RequestIds.randomUuids().get()).isNotEqualTo(id);
    }
}
