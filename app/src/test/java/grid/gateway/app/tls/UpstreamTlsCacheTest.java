package grid.gateway.app.tls;

import static org.assertj.core.api.Assertions.assertThat;

import grid.gateway.app.GatewayHarness;
import grid.gateway.app.config.ConfigLoader;
import grid.gateway.app.config.GatewayConfig;
import grid.gateway.routing.grid.BackendCluster;
import io.helidon.common.tls.Tls;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS a cluster is sent with is that of the config it was routed on: a reload switches the TLS before the grid,
 * and a request routed just before it may be sent just after. A cluster only the config before has (moved to another
 * URL, changed, removed) gets the TLS of that config, not the new TLS with its old URL; a cluster the new config has
 * gets the new TLS, a rotation included; an undone switch gives back the TLS before.
 */
class UpstreamTlsCacheTest {
    @TempDir
    Path dir;

    @Test
    void aClusterOfTheConfigBefore_getsTheTlsOfThatConfig_theNewOneTheNew() throws Exception {
        TestPki first = TestPki.create(dir, "first");
        TestPki second = TestPki.create(dir, "second");
        GatewayConfig before = load("before.yaml", "https://127.0.0.1:8443", first.caFile());
        GatewayConfig after = load("after.yaml", "https://127.0.0.1:9443", second.caFile());
        BackendCluster routedBefore = before.grid().clusters().getFirst();
        BackendCluster routedAfter = after.grid().clusters().getFirst();
        UpstreamTlsCache cache =
                new UpstreamTlsCache(before.tls(), before.grid().clusters());
        Tls old = cache.forCluster(routedBefore).orElseThrow();

        Runnable back = cache.update(after.tls(), after.grid().clusters());

        Tls now = cache.forCluster(routedAfter).orElseThrow();
        assertThat(now).isNotSameAs(old);
        assertThat(cache.forCluster(routedBefore))
                .as("the cluster as the config before had it")
                .containsSame(old);

        back.run();
        assertThat(cache.forCluster(routedBefore)).containsSame(old);
    }

    @Test
    void aClusterBothConfigsHaveAlike_getsTheNewTls_aRotationApplies() throws Exception {
        TestPki first = TestPki.create(dir, "first");
        TestPki second = TestPki.create(dir, "second");
        GatewayConfig before = load("before.yaml", "https://127.0.0.1:8443", first.caFile());
        GatewayConfig after = load("after.yaml", "https://127.0.0.1:8443", second.caFile());
        BackendCluster cluster = before.grid().clusters().getFirst();
        assertThat(after.grid().clusters()).containsExactly(cluster);
        UpstreamTlsCache cache =
                new UpstreamTlsCache(before.tls(), before.grid().clusters());
        Tls old = cache.forCluster(cluster).orElseThrow();

        cache.update(after.tls(), after.grid().clusters());

        assertThat(cache.forCluster(cluster)).isPresent().get().isNotSameAs(old);
    }

    private GatewayConfig load(String name, String url, Path ca) throws Exception {
        Path file = Files.writeString(
                dir.resolve(name),
                GatewayHarness.config(
                        "", GatewayHarness.oneSite(url) + "        tls:\n          ca_file: " + ca + "\n"));
        return ConfigLoader.load(file).config();
    }
}
