package grid.gateway.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code helm lint --strict} passes with the chart's values and with each ci values file, and can fail. */
class ChartLintTest {
    static List<Path> ciValues() {
        return DeployPaths.ciValues();
    }

    @Test
    void lint_chartValues_passesStrict() {
        LintResult result = Chart.repository().lint();

        assertThat(result.isFailed()).as("%s", result.getMessages()).isFalse();
        assertThat(result.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    @ParameterizedTest
    @MethodSource("ciValues")
    void lint_ciValues_passesStrict(Path values, @TempDir Path scratch) {
        LintResult result = Chart.repository().lint(values, scratch.resolve("chart"));

        assertThat(result.isFailed()).as("%s", result.getMessages()).isFalse();
        assertThat(result.getMessages()).noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
    }

    @Test
    void ciValues_coverTheRequiredCases() {
        assertThat(ciValues())
                .map(CiRenders::name)
                .contains(
                        "defaults",
                        "two-site-consumer",
                        "provider",
                        "prefix-affinity",
                        "prefix-sharing",
                        "existing-secret",
                        "created-secret",
                        "extensions");
    }

    @Test
    void lint_templateWithNilPointer_fails(@TempDir Path scratch) throws IOException {
        // Proves the check can fail: a template reading a value that does not exist.
        Path copy = Chart.repository().copyTo(scratch.resolve("chart"));
        Files.writeString(copy.resolve("templates/broken.yaml"), "x: {{ .Values.missing.deeper }}\n");

        LintResult result = new Chart(copy).lint();

        assertThat(result.isFailed()).isTrue();
        assertThat(String.join("\n", result.getMessages())).contains("broken.yaml");
    }

    @Test
    void template_tagKeyBothExistingAndCreated_isRefused(@TempDir Path scratch) throws IOException {
        Path values = scratch.resolve("values.yaml");
        Files.writeString(
                values, "tagKey: {existingSecret: grid-tag-key, create: true, value: a-key-of-16-bytes-or-more}\n");

        assertThatThrownBy(() -> Chart.repository().template(values))
                .hasMessageContaining("tagKey: set either existingSecret");
    }

    @Test
    void template_createdTagKeyWithoutValue_isRefused(@TempDir Path scratch) throws IOException {
        Path values = scratch.resolve("values.yaml");
        Files.writeString(values, "tagKey: {create: true}\n");

        assertThatThrownBy(() -> Chart.repository().template(values))
                .hasMessageContaining("tagKey.create is true but tagKey.value is empty");
    }

    @Test
    void template_snakeCasePrefixAffinityKey_isRefusedByName(@TempDir Path scratch) throws IOException {
        // ttl_secs is the config file's spelling; in values it is ttlSecs. Silently dropping it would leave the
        // plugin default in force unnoticed.
        Path values = scratch.resolve("values.yaml");
        Files.writeString(values, "gridServing: {siteRoute: {prefixAffinity: {ttl_secs: 60}}}\n");

        // values.schema.json refuses it before any template runs (ValuesSchemaTest: the templates do too).
        assertThatThrownBy(() -> Chart.repository().template(values))
                .hasMessageContaining("/gridServing/siteRoute/prefixAffinity")
                .hasMessageContaining("ttl_secs");
    }

    @Test
    void template_unknownClusterKey_isRefusedWithItsPath(@TempDir Path scratch) throws IOException {
        Path values = scratch.resolve("values.yaml");
        Files.writeString(values, """
                gridServing:
                  sites:
                    - name: east
                      clusters:
                        - {name: east-a, url: "http://a:8000", models: [m], max_queue_depth: 4}
                """);

        assertThatThrownBy(() -> Chart.repository().template(values))
                .hasMessageContaining("/gridServing/sites/0/clusters/0")
                .hasMessageContaining("max_queue_depth");
    }
}
