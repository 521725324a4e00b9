package grid.gateway.app.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

class CausesTest {
    @Test
    void describe_namesTheInnermostCause() {
        Exception wrapped = new IllegalStateException("outer", new UncheckedIOException(new IOException("reset")));
        assertThat(Causes.describe(wrapped)).isEqualTo("IOException: reset");
        assertThat(Causes.describe(new IOException())).isEqualTo("IOException");
    }

    @Test
    void innermost_aCauseChainWithACycle_ends() {
        Exception a = new IOException("a");
        Exception b = new IOException("b");
        a.initCause(b);
        b.initCause(a);
        assertThat(Causes.innermost(a)).isIn(a, b);
    }
}
