package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class LoggedThrowableTest {
    private static String trace(Throwable t) {
        StringWriter out = new StringWriter();
        t.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    @Test
    void nothingToChange_theExceptionItself() {
        IOException plain = new IOException("connection refused", new IllegalStateException("no route"));

        assertThat(LoggedThrowable.of(plain)).isSameAs(plain);
    }

    @Test
    void aMessageToChange_theChainCopied_classNamesAndFramesKept() {
        IOException cause = new IOException("bad status line \"HTTP/1.1 200\r\nX: resp_east.ab..SECRET\"");
        IllegalStateException thrown = new IllegalStateException("exchange failed", cause);

        Throwable logged = LoggedThrowable.of(thrown);

        assertThat(logged).isNotSameAs(thrown);
        assertThat(logged.toString()).isEqualTo("java.lang.IllegalStateException: exchange failed");
        assertThat(logged.getStackTrace()).isEqualTo(thrown.getStackTrace());
        assertThat(logged.getCause()).isNotNull();
        assertThat(logged.getCause().toString())
                .isEqualTo("java.io.IOException: bad status line \"HTTP/1.1 200\\r\\nX: {id}\"");
        assertThat(logged.getCause().getStackTrace()).isEqualTo(cause.getStackTrace());
        assertThat(trace(logged))
                .doesNotContain("SECRET")
                .contains("\tat grid.gateway.app.observe.LoggedThrowableTest.");
    }

    @Test
    void aCauseChainThatLoops_endsTheCopy() {
        IllegalStateException a = new IllegalStateException("a\nforged");
        IllegalStateException b = new IllegalStateException("b", a);
        a.initCause(b);

        Throwable logged = LoggedThrowable.of(a);

        assertThat(logged.toString()).isEqualTo("java.lang.IllegalStateException: a\\nforged");
        assertThat(logged.getCause()).isNotNull();
        assertThat(logged.getCause().toString()).isEqualTo("java.lang.IllegalStateException: b");
        assertThat(logged.getCause().getCause()).isNull();
    }
}
