package grid.gateway.deploy;

import static grid.gateway.deploy.Rendered.at;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which value changes restart the gateway pods. The gateway applies config changes live and keeps its in-memory
 * prefix memory, so a change to the live part of the config must leave the pod template alone; settings it reads
 * only at start must change the template, or they would never take effect.
 */
class ConfigRolloutTest {
    private static Object podTemplate(Map<String, Object> sets) {
        Rendered rendered = Rendered.parse("set", Chart.repository().template(DeployPaths.ciValues("defaults"), sets));
        return at(rendered.only("Deployment"), "spec", "template");
    }

    @Test
    void liveConfigChange_leavesThePodTemplateAlone() {
        Object before = podTemplate(Map.of());
        Object after = podTemplate(Map.of(
                "gridServing.siteRoute.prefixAffinity.capacity", 1000,
                "gridServing.siteRoute.load.windowSecs", 30,
                "gridServing.configPollMs", 2000,
                "server.maxBodyBytes", 1048576));

        assertThat(after).isEqualTo(before);
    }

    @Test
    void startOnlyChange_changesThePodTemplate() {
        Object before = podTemplate(Map.of());
        Object after = podTemplate(Map.of("gridServing.upstream.connectTimeoutMs", 5000));

        assertThat(at(after, "metadata", "annotations", "checksum/start-only-config"))
                .isNotEqualTo(at(before, "metadata", "annotations", "checksum/start-only-config"));
    }

    @Test
    void rollOnConfigChange_anyConfigChangeChangesThePodTemplate() {
        Object before = podTemplate(Map.of("rollOnConfigChange", true));
        Object after =
                podTemplate(Map.of("rollOnConfigChange", true, "gridServing.siteRoute.prefixAffinity.capacity", 1000));

        assertThat(at(before, "metadata", "annotations", "checksum/config")).isNotNull();
        assertThat(at(after, "metadata", "annotations", "checksum/config"))
                .isNotEqualTo(at(before, "metadata", "annotations", "checksum/config"));
    }
}
