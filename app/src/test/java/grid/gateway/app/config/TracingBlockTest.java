package grid.gateway.app.config;

import static grid.gateway.app.config.TestConfigs.MINIMAL;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The top-level {@code tracing} block: absent means no export; the endpoint is a URL; unknown keys are refused. */
class TracingBlockTest {
    @TempDir
    Path dir;

    private static String tracing(String lines) {
        return MINIMAL + "tracing:\n" + TestConfigs.indent(lines, 2);
    }

    private TracingSettings load(String yaml) {
        return ConfigLoader.load(TestConfigs.write(dir, "gateway.yaml", yaml))
                .config()
                .tracing();
    }

    @Test
    void absent_noExport_defaultsFilledIn() {
        TracingSettings settings = load(MINIMAL);

        assertThat(settings).isEqualTo(TracingSettings.none());
        assertThat(settings.exports()).isFalse();
        assertThat(settings.serviceName()).isEqualTo("grid-gateway");
        assertThat(settings.sampleRatio()).isEqualTo(1.0);
    }

    @ParameterizedTest
    @CsvSource({
        "http://collector:4318, http://collector:4318/v1/traces",
        "http://collector:4318/, http://collector:4318/v1/traces",
        "https://collector.example/otlp/v1/traces, https://collector.example/otlp/v1/traces",
    })
    void endpoint_baseUrlGetsTheTracesPath_aPathIsKept(String written, String used) {
        TracingSettings settings =
                load(tracing("otlp_endpoint: " + written + "\nservice_name: east-gw\nsample_ratio: 0.25\n"));

        assertThat(settings.otlpEndpoint()).isEqualTo(Optional.of(URI.create(used)));
        assertThat(settings.serviceName()).isEqualTo("east-gw");
        assertThat(settings.sampleRatio()).isEqualTo(0.25);
    }

    @Test
    void invalidValues_eachReportedWithItsKeyPath() {
        assertThat(TestConfigs.problems(
                        dir, tracing("otlp_endpoint: grpc://collector:4317\nservice_name: \"\"\nsample_ratio: 1.5\n")))
                .containsExactlyInAnyOrder(
                        "tracing.otlp_endpoint: \"grpc://collector:4317\" (expected: an http or https URL)",
                        "tracing.service_name: \"\" (expected: a non-empty name without control characters)",
                        "tracing.sample_ratio: 1.5 (expected: a number in 0..1, above 0)");
        assertThat(TestConfigs.problems(dir, tracing("sample_ratio: 0\n")))
                .containsExactly("tracing.sample_ratio: 0 (expected: a finite number > 0)");
    }

    @Test
    void unknownKey_refused_dashCaseToldItsName() {
        assertThat(TestConfigs.problems(dir, tracing("otlp-endpoint: http://collector:4318\nexporter: otlp\n")))
                .containsExactly(
                        "tracing.otlp-endpoint: unknown key (expected: otlp_endpoint; keys are snake_case)",
                        "tracing.exporter: unknown key (expected: one of otlp_endpoint, service_name, sample_ratio)");
    }
}
