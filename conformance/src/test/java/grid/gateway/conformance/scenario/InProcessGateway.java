package grid.gateway.conformance.scenario;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The gateway in this JVM, started by {@link GatewayHarness} (a manual clock, the scenario's seed); a reload goes
 * through {@code GatewayServer.apply}, and a queue depth is scraped at once.
 */
final class InProcessGateway extends GatewayUnderTest {
    /** What this in-process gateway lets a scenario control. */
    static final Set<String> CAPABILITIES = Set.of("manual_clock", "seeded_random", "reload", "engine_faults");

    private final GatewayHarness gateway;

    InProcessGateway(Scenario scenario, Path dir) {
        super(scenario, dir);
        GatewayHarness started = null;
        try {
            startEngines(scenario.grid());
            started = GatewayHarness.seeded(
                    dir, configText(scenario.grid(), scenario.gateway(), scenario.plugins()), scenario.seed());
        } finally {
            if (started == null) {
                closeEngines();
            }
        }
        this.gateway = started;
        // Every cluster measured from the start, so that "unmeasured" never decides a scenario by accident.
        gateway.server.scrapeNow();
    }

    private String configText(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        return yaml(config(grid, gateway, plugins));
    }

    @Override
    int port() {
        return gateway.server.port();
    }

    @Override
    int adminPort() {
        return gateway.server.adminPort();
    }

    @Override
    void queueDepthSet(String cluster, int depth) {
        gateway.server.scrapeNow();
    }

    @Override
    void advance(Duration by) {
        gateway.clock.advance(by);
    }

    @Override
    void reload(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        startEngines(grid);
        this.gateway.server.apply(this.gateway.snapshot(configText(
                grid,
                gateway.isEmpty() ? scenario.gateway() : gateway,
                plugins.isEmpty() ? scenario.plugins() : plugins)));
    }

    @Override
    void refusedReload(
            List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins, String refused) {
        assertThatThrownBy(() -> reload(grid, gateway, plugins))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(refused);
    }

    @Override
    public void close() {
        gateway.close();
        closeEngines();
    }
}
