package grid.gateway.routing.prefix;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.routing.grid.ClusterId;
import grid.gateway.routing.grid.SiteName;
import grid.gateway.routing.keyer.ApiDialect;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * "Reported 0" against "does not report": a usage without a count is 0 only from a cluster that reported a count on
 * that API, and stops being 0 after a long silence.
 */
class CachedTokenReportersTest {
    private static final ClusterId A = new ClusterId(new SiteName("east"), "a");
    private static final ClusterId B = new ClusterId(new SiteName("east"), "b");

    private final CachedTokenReporters reporters = new CachedTokenReporters();

    @Test
    void silence_fromAClusterNeverSeenReporting_isNothing() {
        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                .isEmpty();
    }

    @Test
    void silence_afterACount_isZero() {
        assertThat(reporters.read(A, UsageReport.counted(ApiDialect.CHAT_COMPLETIONS, 2_432)))
                .hasValue(2_432);

        // vLLM with --enable-prompt-tokens-details: "prompt_tokens_details": null when nothing was cached.
        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                .hasValue(0);
    }

    @Test
    void learnedPerClusterAndPerApi() {
        reporters.read(A, UsageReport.counted(ApiDialect.RESPONSES, 0));

        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.RESPONSES))).hasValue(0);
        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.MESSAGES)))
                .as("vLLM never reports a hit on /v1/messages")
                .isEmpty();
        assertThat(reporters.read(B, UsageReport.silent(ApiDialect.RESPONSES))).isEmpty();
        assertThat(reporters.reports(A, Optional.of(ApiDialect.RESPONSES))).isTrue();
        assertThat(reporters.reports(A, Optional.of(ApiDialect.CHAT_COMPLETIONS)))
                .isFalse();
    }

    @Test
    void aLongSilence_endsTheBelief() {
        reporters.read(A, UsageReport.counted(ApiDialect.CHAT_COMPLETIONS, 128));
        for (int i = 1; i < CachedTokenReporters.SILENT_LIMIT; i++) {
            assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                    .as("silent answer " + i)
                    .hasValue(0);
        }

        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                .isEmpty();
        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                .isEmpty();
        reporters.read(A, UsageReport.counted(ApiDialect.CHAT_COMPLETIONS, 16));
        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                .as("a count makes it a reporter again")
                .hasValue(0);
    }

    @Test
    void retain_forgetsClustersThatLeft() {
        reporters.read(A, UsageReport.counted(ApiDialect.CHAT_COMPLETIONS, 16));

        reporters.retain(Set.of(B));

        assertThat(reporters.read(A, UsageReport.silent(ApiDialect.CHAT_COMPLETIONS)))
                .isEmpty();
    }
}
