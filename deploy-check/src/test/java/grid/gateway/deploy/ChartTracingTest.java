package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code tracing}: an OTLP endpoint renders the config's {@code tracing} block (none by default), opens the
 * collector's port when egress is restricted, and the gateway accepts what it renders.
 */
class ChartTracingTest {
    @Test
    void tracing_rendersTheTracingBlock() {
        Rendered rendered = CiRenders.of("tracing");

        assertThat(at(rendered.config(), "tracing"))
                .isEqualTo(Map.of(
                        "otlp_endpoint", "http://otel-collector.observability:4318",
                        "service_name", "grid-gateway-east",
                        "sample_ratio", 0.25));
    }

    @Test
    void tracing_restrictedEgress_allowsTheCollectorPort() {
        Map<String, Object> policy = CiRenders.of("tracing").only("NetworkPolicy");
        List<?> egress = (List<?>) at(policy, "spec", "egress");

        assertThat(egress)
                .anySatisfy(rule -> assertThat(at(rule, "ports", 0, "port")).isEqualTo(4318));
    }

    @Test
    void tracing_effectiveConfig_acceptedByTheGateway(@TempDir Path scratch) {
        CheckableConfig.Result result = CheckableConfig.check(CiRenders.of("tracing"), scratch);
        Map<String, Object> effective = Values.map(new Yaml().load(result.out()));

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(at(effective, "tracing", "otlp_endpoint"))
                .isEqualTo("http://otel-collector.observability:4318/v1/traces");
        assertThat(at(effective, "tracing", "sample_ratio")).isEqualTo(0.25);
    }

    @Test
    void defaults_noTracingBlock() {
        assertThat(CiRenders.of("defaults").config()).doesNotContainKey("tracing");
    }

    @Test
    void schema_refusesARatioAboveOne_andAnEndpointThatIsNotAUrl(@TempDir Path scratch) throws Exception {
        Path ratio = scratch.resolve("ratio-values.yaml");
        Files.writeString(ratio, "tracing: {otlpEndpoint: \"http://collector:4318\", sampleRatio: 2}\n");
        Path url = scratch.resolve("url-values.yaml");
        Files.writeString(url, "tracing: {otlpEndpoint: \"collector:4317\"}\n");

        assertThatThrownBy(() -> Chart.repository().template(ratio))
                .hasMessageContaining("tracing")
                .hasMessageContaining("sampleRatio");
        assertThatThrownBy(() -> Chart.repository().template(url))
                .hasMessageContaining("tracing")
                .hasMessageContaining("otlpEndpoint");
    }
}
