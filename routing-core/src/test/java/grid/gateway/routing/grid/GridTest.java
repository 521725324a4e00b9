package grid.gateway.routing.grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.tag.ClusterDigest;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** "Site names go into these ids, so the gateway refuses a serving config whose site names are not DNS-1123 labels." */
class GridTest {
    private static BackendCluster cluster(String site, String name, String... models) {
        return new BackendCluster(
                new ClusterId(new SiteName(site), name),
                URI.create("http://127.0.0.1:1"),
                Set.of(models),
                Optional.empty(),
                OptionalInt.empty(),
                false);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"east", "a", "eu-west-1", "0", "abcdefghijklmnopqrstuvwxyz-abcdefghijklmnopqrstuvwxyz-012345678"
            })
    void siteName_dns1123Label_accepted(String name) {
        assertThat(new SiteName(name).value()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "East", "-east", "east-", "eu.west", "eu_west", "éast", "a b"})
    void siteName_notADns1123Label_refusedNamingIt(String name) {
        assertThatThrownBy(() -> new SiteName(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"" + name + "\"");
    }

    @Test
    void siteName_sixtyFourCharacters_refused() {
        assertThat(SiteName.isValid("a".repeat(64))).isFalse();
    }

    @Test
    void of_duplicateClusterInASite_refused() {
        assertThatThrownBy(() ->
                        Grid.of(new SiteName("east"), List.of(cluster("east", "a", "m"), cluster("east", "a", "m"))))
                .hasMessageContaining("east/a");
    }

    @Test
    void of_sameNameAtTwoSites_allowed_andTagsTellThemApart() {
        Grid grid = Grid.of(new SiteName("east"), List.of(cluster("east", "pool", "m"), cluster("west", "pool", "m")));
        String digest = ClusterDigest.of("pool");
        assertThat(grid.clusterByTag("west", digest).orElseThrow().id().site()).isEqualTo(new SiteName("west"));
        assertThat(grid.clusterByTag("north", digest)).isEmpty();
    }

    @Test
    void serving_listsClustersOfTheModelInConfigOrder() {
        Grid grid = Grid.of(
                new SiteName("east"),
                List.of(cluster("east", "a", "m"), cluster("west", "b", "n"), cluster("west", "c", "m", "n")));
        assertThat(grid.serving("m")).extracting(c -> c.id().name()).containsExactly("a", "c");
        assertThat(grid.serving("x")).isEmpty();
        assertThat(grid.models()).containsExactlyInAnyOrder("m", "n");
    }

    @Test
    void of_localSiteWithoutClusters_refused() {
        assertThatThrownBy(() -> Grid.of(new SiteName("north"), List.of(cluster("east", "a", "m"))))
                .hasMessageContaining("north");
    }
}
