package grid.gateway.app.trace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code traceparent} rules of W3C Trace Context, and the child context the gateway passes on. */
class TraceParentTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT = "00f067aa0ba902b7";

    @Test
    void version00_parsed() {
        assertThat(TraceParent.parse("00-" + TRACE + "-" + PARENT + "-01"))
                .contains(new TraceParent(TRACE, PARENT, "01"));
    }

    @Test
    void laterVersion_extraFieldsIgnored_passedOnAsVersion00() {
        Optional<TraceParent> parsed = TraceParent.parse("cc-" + TRACE + "-" + PARENT + "-00-what-comes-next");

        assertThat(parsed).contains(new TraceParent(TRACE, PARENT, "00"));
        assertThat(parsed.orElseThrow().header()).isEqualTo("00-" + TRACE + "-" + PARENT + "-00");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "garbage",
                "00-" + TRACE + "-" + PARENT + "-01-extra",
                "00-" + TRACE + "-" + PARENT + "-1",
                "cc-" + TRACE + "-" + PARENT + "-01extra",
                "ff-" + TRACE + "-" + PARENT + "-01",
                "00-00000000000000000000000000000000-" + PARENT + "-01",
                "00-" + TRACE + "-0000000000000000-01",
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-" + PARENT + "-01",
                "00-" + TRACE + "-" + PARENT + "-0g",
                "00_" + TRACE + "-" + PARENT + "-01",
                "0x-" + TRACE + "-" + PARENT + "-01",
            })
    void malformed_refused(String value) {
        assertThat(TraceParent.parse(value)).isEmpty();
    }

    @Test
    void child_sameTraceAndFlags_aNewNonZeroParentId() {
        TraceParent parent = new TraceParent(TRACE, PARENT, "01");
        SplittableRandom random = new SplittableRandom(3);

        TraceParent child = parent.child(random);
        TraceParent next = parent.child(random);

        assertThat(child.traceId()).isEqualTo(TRACE);
        assertThat(child.flags()).isEqualTo("01");
        assertThat(child.parentId())
                .matches("[0-9a-f]{16}")
                .isNotEqualTo(PARENT)
                .isNotEqualTo("0000000000000000");
        assertThat(next.parentId()).isNotEqualTo(child.parentId());
        assertThat(TraceParent.parse(child.header())).contains(child);
    }
}
