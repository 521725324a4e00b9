package grid.gateway.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import grid.gateway.routing.prefix.PrefixAffinitySettings;
import org.junit.jupiter.api.Test;

class SimGridTest {
    /** What the gateway's default memory remembers of one cluster: entries of 256 bytes, four bytes a token. */
    private static final long GATEWAY_TOKENS = PrefixAffinitySettings.defaults().capacity() * 64L;

    @Test
    void named_fast_prefillsTenToTwentyThousandTokensPerSecond() {
        assertThat(SimGrid.named("fast").clusters())
                .allSatisfy(c -> assertThat(c.prefillTokensPerSecond()).isBetween(10_000.0, 20_000.0))
                .anySatisfy(c -> assertThat(c.prefillTokensPerSecond()).isEqualTo(10_000.0))
                .anySatisfy(c -> assertThat(c.prefillTokensPerSecond()).isEqualTo(20_000.0));
    }

    @Test
    void named_slow_isIssueSevensGrid() {
        assertThat(SimGrid.named("slow").clusters())
                .allSatisfy(c -> assertThat(c.prefillTokensPerSecond()).isBetween(2_000.0, 4_000.0));
        assertThat(SimGrid.standard()).isEqualTo(SimGrid.slow());
        assertThat(SimGrid.slow().clusters().getFirst())
                .isEqualTo(new ClusterModel("east", "east-a", 12, 3_000, 40, 288_000));
    }

    @Test
    void named_mixed_holdsBothKinds() {
        assertThat(SimGrid.named("mixed").clusters())
                .anySatisfy(c -> assertThat(c.prefillTokensPerSecond()).isGreaterThanOrEqualTo(10_000.0))
                .anySatisfy(c -> assertThat(c.prefillTokensPerSecond()).isLessThanOrEqualTo(4_000.0));
    }

    @Test
    void everyGrid_engineCachesSmallerThanTheGatewaysMemory_soEntriesGoStale() {
        for (String name : SimGrid.NAMES) {
            assertThat(SimGrid.named(name).clusters())
                    .allSatisfy(c -> assertThat((long) c.cacheTokens()).isLessThan(GATEWAY_TOKENS));
        }
    }

    @Test
    void withCacheTokens_changesOnlyTheCache() {
        SimGrid grid = SimGrid.fast().withCacheTokens(2_000_000);

        assertThat(grid.name()).isEqualTo("fast");
        assertThat(grid.clusters()).allSatisfy(c -> assertThat(c.cacheTokens()).isEqualTo(2_000_000));
        assertThat(grid.clusters().get(2).prefillTokensPerSecond()).isEqualTo(20_000.0);
    }

    @Test
    void named_unknown_fails() {
        assertThatThrownBy(() -> SimGrid.named("medium")).hasMessageContaining("medium");
    }
}
