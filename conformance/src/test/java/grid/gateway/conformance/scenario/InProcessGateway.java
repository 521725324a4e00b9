package grid.gateway.conformance.scenario;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.app.GatewayRuntime;
import grid.gateway.app.GatewayServer;
import grid.gateway.app.config.ConfigException;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewaySnapshot;
import grid.gateway.routing.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The gateway in this JVM, with a {@link ManualClock} and a seeded {@link SplittableRandom}; a reload goes through
 * {@code GatewayServer.apply}, and a queue depth is scraped at once.
 */
final class InProcessGateway extends GatewayUnderTest {
    /** What this in-process gateway lets a scenario control. */
    static final Set<String> CAPABILITIES = Set.of("manual_clock", "seeded_random", "reload", "engine_faults");

    private final ManualClock clock = new ManualClock();
    private final GatewayServer server;

    InProcessGateway(Scenario scenario, java.nio.file.Path dir) {
        super(scenario, dir);
        GatewayServer started = null;
        try {
            startEngines(scenario.grid());
            started = GatewayServer.start(
                    snapshot(scenario.grid(), scenario.gateway(), scenario.plugins()),
                    new GatewayRuntime(clock, new SplittableRandom(scenario.seed()), "127.0.0.1"));
        } finally {
            if (started == null) {
                closeEngines();
            }
        }
        this.server = started;
        // Every cluster measured from the start, so that "unmeasured" never decides a scenario by accident.
        server.scrapeNow();
    }

    private GatewaySnapshot snapshot(
            List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        return ConfigLoader.load(write("gateway", yaml(config(grid, gateway, plugins))));
    }

    @Override
    int port() {
        return server.port();
    }

    @Override
    int adminPort() {
        return server.adminPort();
    }

    @Override
    void queueDepthSet(String cluster, int depth) {
        server.scrapeNow();
    }

    @Override
    void advance(Duration by) {
        clock.advance(by);
    }

    @Override
    void reload(List<Scenario.Site> grid, Map<String, Object> gateway, Map<String, Object> plugins) {
        startEngines(grid);
        server.apply(snapshot(
                grid,
                gateway.isEmpty() ? scenario.gateway() : gateway,
                plugins.isEmpty() ? scenario.plugins() : plugins));
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
        server.close();
        closeEngines();
    }
}
