package grid.gateway.app.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The strict reader fails each fault a scraper could read differently from what was meant, and reads the rest. */
class StrictExpositionTest {
    private static final String TEXT_HEAD = "# HELP a_total A.\n# TYPE a_total counter\n";
    private static final String OM_HEAD = "# TYPE a counter\n# HELP a A.\n";

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "an unescaped quote|a_total{c=\"x\"y\"} 1\\n|labels not separated by a comma",
                "an escape the format lacks|a_total{c=\"x\\ty\"} 1\\n|escape the format does not have",
                "a repeated series|a_total{c=\"x\"} 1\\na_total{c=\"x\"} 2\\n|repeated series",
                "a repeated label|a_total{c=\"x\",c=\"y\"} 1\\n|repeated label",
                "a split family|a_total 1\\n# TYPE b gauge\\nb 1\\na_total{c=\"y\"} 2\\n|not one group",
                "a second TYPE|# TYPE a_total counter\\na_total 1\\n|second TYPE",
                "not a value|a_total one\\n|not a value",
                "no newline at the end|a_total 1|does not end with a newline"
            })
    void prometheusText_fault_failsNamingIt(String name, String samples, String fault) {
        String page = TEXT_HEAD + samples.replace("\\n", "\n");
        assertThatThrownBy(() -> StrictExposition.prometheusText(page.getBytes(StandardCharsets.UTF_8)))
                .as(name)
                .hasMessageContaining(fault);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "no EOF|a_total 1\\n|must end with # EOF",
                "a trailing comma|a_total{c=\"x\",} 1\\n# EOF\\n|trailing comma",
                "a counter family named _total|# TYPE b_total counter\\nb_total 1\\n# EOF\\n|named _total",
                "a NaN counter|a_total NaN\\n# EOF\\n|counter must be a number",
                "a counter sample without _total|a 1\\n# EOF\\n|has no sample named as its family"
            })
    void openMetrics_fault_failsNamingIt(String name, String samples, String fault) {
        String page = OM_HEAD + samples.replace("\\n", "\n");
        assertThatThrownBy(() -> StrictExposition.openMetrics(page.getBytes(StandardCharsets.UTF_8)))
                .as(name)
                .hasMessageContaining(fault);
    }

    @Test
    void labelValue_eachEscape_decoded() {
        String page = TEXT_HEAD + "a_total{b=\"x\\\\ny\",q=\"x\\\"y\",n=\"x\\ny\"} 1\n";
        StrictExposition.Page read = StrictExposition.prometheusText(page.getBytes(StandardCharsets.UTF_8));
        assertThat(read.named("a_total").getFirst().labels())
                .containsEntry("b", "x\\ny")
                .containsEntry("q", "x\"y")
                .containsEntry("n", "x\ny");
    }
}
